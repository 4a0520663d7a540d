// Element-wise kernels over contiguous spans of f32 or f64, for fused groups that run tile by
// tile in cache: the same element functions as the tensor kernels (float_functions.hpp), in
// loops the compiler vectorises. An output span may be one of the input spans (element i is
// read before it is written); other overlaps are not allowed.
#pragma once

#include <cstdint>

#include "program/ops/elementwise/elementwise.hpp"

namespace ndbuf::program {

template <class T>
using SpanUnaryFn = void (*)(const T* x, T* out, int64_t n);
template <class T>
using SpanBinaryFn = void (*)(const T* lhs, const T* rhs, T* out, int64_t n);
// A binary op whose other operand is one value for the whole span: out[i] = f(lhs[i], rhs)
// (`scalar_left` false) or f(lhs, rhs[i]) (true), the same bits as the span kernel given a
// span filled with that value.
template <class T>
using SpanScalarFn = void (*)(const T* span, T scalar, T* out, int64_t n);

// The span kernel of `op` for T = float or double; nullptr for ops without one.
template <class T>
SpanUnaryFn<T> span_unary(UnaryOp op);
template <class T>
SpanBinaryFn<T> span_binary(BinaryOp op);
// The kernel of `op` with a scalar operand, on the left or the right; nullptr for ops without.
template <class T>
SpanScalarFn<T> span_binary_scalar(BinaryOp op, bool scalar_left);

}  // namespace ndbuf::program
