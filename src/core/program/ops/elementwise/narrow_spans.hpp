// f16 and bf16 spans computed by an f32 span function: widened a chunk at a time as load<T>
// widens, the f32 function run on the chunk, each result rounded once as store<T> rounds. The
// element-wise kernels and fused element programs both use these for the 16-bit floats, so an
// element's bits never depend on which of them computed it, and the 16-bit types get the f32
// vector math (one rounding from the f32 function's result) instead of scalar libm calls.
#pragma once

#include <cstdint>

#include "ndbuf/base/dtype.hpp"
#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {

// `dtype` is kF16 or kBF16; spans hold its bits. `out` may be an input.
void narrow_span_unary(DType dtype, SpanUnaryFn<float> f, const uint16_t* x, uint16_t* out,
                       int64_t n);
void narrow_span_binary(DType dtype, SpanBinaryFn<float> f, const uint16_t* a, const uint16_t* b,
                        uint16_t* out, int64_t n);

}  // namespace ndbuf::program
