// Non-temporal copies (stream_store.hpp): 32-byte stores where the CPU has AVX, SSE2's 16-byte
// ones (x86-64's baseline) otherwise, plain copies elsewhere. The wider store matters: a
// gather of 8192 random 1 KiB rows, one thread, with 16-byte streaming stores took as long as
// plain ones (0.57-0.84 ms), with 32- or 64-byte ones 0.38-0.42 ms (a C loop on the 2-core
// Zen 4 test machine); 64 measured the same as 32, so AVX, which more CPUs have, is the path.
#include "memory/stream_store.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NDBUF_STREAM_AVX 1
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ndbuf {
namespace {

// Copies the bytes before `to`'s next `alignment` boundary plainly; returns their count.
size_t copy_head(unsigned char* to, const unsigned char* from, size_t bytes, size_t alignment) {
  const size_t misplaced = reinterpret_cast<uintptr_t>(to) % alignment;
  const size_t head = std::min(bytes, (alignment - misplaced) % alignment);
  std::memcpy(to, from, head);
  return head;
}

#if defined(NDBUF_STREAM_AVX)
__attribute__((target("avx"))) void stream_copy_avx(unsigned char* to, const unsigned char* from,
                                                    size_t bytes) {
  size_t k = copy_head(to, from, bytes, 32);
  for (; k + 32 <= bytes; k += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(to + k),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + k)));
  }
  std::memcpy(to + k, from + k, bytes - k);
}
#endif

#if defined(__SSE2__)
void stream_copy_sse2(unsigned char* to, const unsigned char* from, size_t bytes) {
  size_t k = copy_head(to, from, bytes, 16);
  for (; k + 16 <= bytes; k += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + k)));
  }
  std::memcpy(to + k, from + k, bytes - k);
}
#endif

}  // namespace

void stream_copy(void* to, const void* from, size_t bytes) {
  auto* dst = static_cast<unsigned char*>(to);
  const auto* src = static_cast<const unsigned char*>(from);
#if defined(NDBUF_STREAM_AVX)
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) return stream_copy_avx(dst, src, bytes);
#endif
#if defined(__SSE2__)
  stream_copy_sse2(dst, src, bytes);
#else
  std::memcpy(dst, src, bytes);
#endif
}

void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace ndbuf
