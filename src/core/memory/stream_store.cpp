// Non-temporal copies (stream_store.hpp) through SSE2, x86-64's baseline; plain copies elsewhere.
#include "memory/stream_store.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ndbuf {

void stream_copy(void* to, const void* from, size_t bytes) {
#if defined(__SSE2__)
  auto* dst = static_cast<unsigned char*>(to);
  const auto* src = static_cast<const unsigned char*>(from);
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  size_t k = head;
  for (; k + 16 <= bytes; k += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k)));
  }
  std::memcpy(dst + k, src + k, bytes - k);
#else
  std::memcpy(to, from, bytes);
#endif
}

void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace ndbuf
