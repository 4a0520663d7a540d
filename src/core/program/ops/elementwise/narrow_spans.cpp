#include "program/ops/elementwise/narrow_spans.hpp"

#include <algorithm>

#include "convert/half_kernels.hpp"
#include "program/kernels/f32_widening.hpp"

namespace ndbuf::program {
namespace {

// The two chunks of a binary span (4 KiB of f32) stay in the first-level cache.
constexpr int64_t kChunk = 512;

void widen(DType dtype, const uint16_t* in, float* out, int64_t n) {
  if (dtype == DType::kBF16) return quiet_widen_bf16_to_f32(in, out, n);
  widen_f16_to_f32(in, out, n);
}

}  // namespace

void narrow_span_unary(DType dtype, SpanUnaryFn<float> f, const uint16_t* x, uint16_t* out,
                       int64_t n) {
  const F32Narrowing narrow = f32_narrowing(dtype);
  float wide[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    widen(dtype, x + begin, wide, count);
    f(wide, wide, count);
    narrow(wide, out + begin, count);
  }
}

void narrow_span_binary(DType dtype, SpanBinaryFn<float> f, const uint16_t* a, const uint16_t* b,
                        uint16_t* out, int64_t n) {
  const F32Narrowing narrow = f32_narrowing(dtype);
  float lhs[kChunk], rhs[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    widen(dtype, a + begin, lhs, count);
    widen(dtype, b + begin, rhs, count);
    f(lhs, rhs, lhs, count);
    narrow(lhs, out + begin, count);
  }
}

}  // namespace ndbuf::program
