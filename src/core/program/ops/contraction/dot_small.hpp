// dot_general of small f32 / f64 matrices without the BLAS: a product of a few thousand
// multiply-adds (the layers of width 10 to 16 in a training loop) costs less than the layers
// of a BLAS call around it.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_plan.hpp"

namespace ndbuf::program {

// Multiply-adds up to which a product qualifies (with the shapes small_dot_fits() asks for).
inline constexpr int64_t kSmallDotProduct = 4096;
// Contracting sizes up to which a product qualifies (bounds the copy of rhs on the stack).
inline constexpr int64_t kSmallDotDepth = 256;

// Whether a product of these operand shapes runs through small_dot(): no batch dims, one free
// and one contracting dim on each side, a matrix result (M and N above 1: a vector result stays
// with the BLAS's gemv, whose summation order differs), at most kSmallDotProduct multiply-adds
// and a contracting size of at most kSmallDotDepth.
bool small_dot_fits(const Shape& lhs, const Shape& rhs, const DotPlan& plan);

// Computes `result` (allocated dense row-major, M x N, of the operands' dtype) from host
// operands of any strides and returns true, or returns false (result untouched) for a dtype
// other than f32 and f64 or operands of another dtype than the result. Each element is a chain
// of fused multiply-adds over the contracting index in ascending order from zero, the order in
// which the BLAS's own kernels accumulate a product this small (its bits where they use
// fused multiply-adds).
bool small_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan, Tensor& result);

}  // namespace ndbuf::program
