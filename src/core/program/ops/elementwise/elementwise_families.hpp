// The element-wise kernels split by dtype family (one file each); unary() and binary() pick
// the family. Operand dtypes and the result dtype are already validated by the callers.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program::detail {

// Each takes its result from `memory` (result_memory.hpp).
Tensor unary_integer(UnaryOp op, const Tensor& x, DType result,
                     ResultMemory& memory);  // pred and integers
Tensor unary_float(UnaryOp op, const Tensor& x, DType result, ResultMemory& memory);
Tensor unary_complex(UnaryOp op, const Tensor& x, DType result, ResultMemory& memory);
// tanh of an f32 tensor, vectorised (elementwise_vector_math.cpp).
Tensor tanh_f32(const Tensor& x, ResultMemory& memory);
// The same over a span (`out` may be `x`); AVX2 packets where the CPU has them.
void tanh_span_f32(const float* x, float* out, int64_t n);
// A span kernel over a whole f32 or f64 tensor (the operands read row-major, copied first where
// they are laid out otherwise), blocks on all threads: the kernels of vector_math.hpp.
template <class T>
Tensor map_span_unary(SpanUnaryFn<T> f, const Tensor& x, ResultMemory& memory);
template <class T>
Tensor map_span_binary(SpanBinaryFn<T> f, const Tensor& a, const Tensor& b, ResultMemory& memory);

// The same for f16 / bf16 tensors, computed in f32 a chunk at a time (narrow_spans.hpp).
Tensor map_narrow_span_unary(SpanUnaryFn<float> f, const Tensor& x, ResultMemory& memory);
Tensor map_narrow_span_binary(SpanBinaryFn<float> f, const Tensor& a, const Tensor& b,
                              ResultMemory& memory);

Tensor binary_integer(BinaryOp op, const Tensor& lhs, const Tensor& rhs,
                      ResultMemory& memory);  // pred and integers
Tensor binary_float(BinaryOp op, const Tensor& lhs, const Tensor& rhs, DType result,
                    ResultMemory& memory);
Tensor binary_complex(BinaryOp op, const Tensor& lhs, const Tensor& rhs, ResultMemory& memory);

}  // namespace ndbuf::program::detail
