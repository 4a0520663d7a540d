// The f16 / bf16 array conversions, cloned for AVX-512F and AVX2 where the compiler can dispatch
// at run time (the package is built for the baseline x86-64 ISA, where they vectorise with SSE2).
#include "convert/half_kernels.hpp"

#include "base/isa_clones.hpp"
#define NDBUF_CLONES NDBUF_ISA_CLONES("avx512f", "avx2", "default")

namespace ndbuf {

NDBUF_CLONES void narrow_to_f16(const double* in, uint16_t* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = narrow_bits<HalfF16>(in[i]);
}

NDBUF_CLONES void narrow_to_bf16(const double* in, uint16_t* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = narrow_bits<HalfBF16>(in[i]);
}

NDBUF_CLONES void widen_f16(const uint16_t* in, double* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = widen_bits<HalfF16>(in[i]);
}

NDBUF_CLONES void widen_bf16(const uint16_t* in, double* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = widen_bits<HalfBF16>(in[i]);
}

NDBUF_CLONES void narrow_f32_to_f16(const float* in, uint16_t* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = f16_of_f32(in[i]);
}

NDBUF_CLONES void narrow_f32_to_bf16(const float* in, uint16_t* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = bf16_of_f32_bits(f32_bits(in[i]));
}

NDBUF_CLONES void widen_f16_to_f32(const uint16_t* in, float* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = quiet_f32_of_f16(in[i]);
}

NDBUF_CLONES void widen_bf16_to_f32(const uint16_t* in, float* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = f32_of(static_cast<uint32_t>(in[i]) << 16);
}

NDBUF_CLONES void quiet_widen_bf16_to_f32(const uint16_t* in, float* out, int64_t count) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = quiet_f32_of_bf16(in[i]);
}

}  // namespace ndbuf
