#include "program/ops/elementwise/narrow_spans.hpp"

#include <algorithm>

#include "convert/half_kernels.hpp"

namespace ndbuf::program {
namespace {

// Three chunks of this many f32 stay in the first-level cache.
constexpr int64_t kChunk = 512;

void widen(DType dtype, const uint16_t* in, float* out, int64_t n) {
  if (dtype == DType::kBF16) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = quiet_f32_of_bf16(in[i]);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = quiet_f32_of_f16(in[i]);
  }
}

void narrow(DType dtype, const float* in, uint16_t* out, int64_t n) {
  if (dtype == DType::kBF16) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = bf16_of_f32_bits(f32_bits(in[i]));
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = f16_of_f32(in[i]);
  }
}

}  // namespace

void narrow_span_unary(DType dtype, SpanUnaryFn<float> f, const uint16_t* x, uint16_t* out,
                       int64_t n) {
  float wide[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    widen(dtype, x + begin, wide, count);
    f(wide, wide, count);
    narrow(dtype, wide, out + begin, count);
  }
}

void narrow_span_binary(DType dtype, SpanBinaryFn<float> f, const uint16_t* a, const uint16_t* b,
                        uint16_t* out, int64_t n) {
  float lhs[kChunk], rhs[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t count = std::min(kChunk, n - begin);
    widen(dtype, a + begin, lhs, count);
    widen(dtype, b + begin, rhs, count);
    f(lhs, rhs, lhs, count);
    narrow(dtype, lhs, out + begin, count);
  }
}

}  // namespace ndbuf::program
