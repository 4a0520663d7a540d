// The 16-bit float operands of the contractions that accumulate in f32 (dot_general and
// convolution through sgemm): widened to f32 once and their f32 results rounded back once,
// through the vectorised array conversions, which give the values of load<T> and the bits of
// store<T> (a bf16 NaN widens with its payload as it is, where load<T> quiets a signalling one;
// the GEMM's NaN results narrow to the quiet NaN either way).
#pragma once

#include <cstdint>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// x as an f32 tensor of the same shape and the same dense order (row- or column-major),
// converted in parallel blocks, when x is a dense f16 / bf16 tensor; otherwise x itself.
Tensor widened_to_f32(const Tensor& x);

// Rounds `count` f32 values to the bits of `dtype`, f16 or bf16, on the calling thread.
using F32Narrowing = void (*)(const float* in, uint16_t* out, int64_t count);
F32Narrowing f32_narrowing(DType dtype);

// The same over a whole array, in parallel blocks when it is large.
void narrow_f32(const float* in, DType dtype, uint16_t* out, int64_t count);

}  // namespace ndbuf::program
