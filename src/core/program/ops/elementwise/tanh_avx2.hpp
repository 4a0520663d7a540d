// The AVX2 build of the f32 tanh span kernel (tanh_avx2.cpp). Kept free of other project
// headers: that file is compiled with -mavx2, and any inline function it emitted could stand
// in for the baseline build's at link time.
#pragma once

#include <cstdint>

namespace ndbuf::program::detail {

// Whether tanh_avx2.cpp was compiled for AVX2 (without FMA, so its rounding matches).
bool tanh_avx2_built();
// tanh over a span with 8-lane packets; only for CPUs with AVX2 (`out` may be `x`).
void tanh_span_f32_avx2(const float* x, float* out, int64_t n);
// elementwise_vector_math.cpp: the dispatching kernel, the baseline (SSE2) one, and whether
// the AVX2 one is used (built for it and running on a CPU that has it).
void tanh_span_f32(const float* x, float* out, int64_t n);
void tanh_span_f32_baseline(const float* x, float* out, int64_t n);
bool tanh_avx2_usable();

}  // namespace ndbuf::program::detail
