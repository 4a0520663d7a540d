// stablehlo.dot_general and stablehlo.dot: tensor contractions.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_plan.hpp"

namespace ndbuf::program {

// The dot dimension numbers, named as in the spec (any order on either side).
struct DotDimensions {
  std::vector<int64_t> lhs_batching_dimensions;
  std::vector<int64_t> rhs_batching_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
};

// Result dims: batch dims (in the order listed), then the free lhs dims, then the free rhs dims,
// each in operand order. Products accumulate in the result dtype (`result_dtype`; the operands
// are converted to it first), integers wrapping, f16/bf16 in f32 with one rounding at the end,
// pred as OR of ANDs. Precision config has no effect.
Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const DotDimensions& dims,
                   DType result_dtype);
// The split of `dims` for operands of these shapes, checked (errors name the dims and sizes).
DotPlan plan_dot(const Shape& lhs, const Shape& rhs, const DotDimensions& dims);
// dot_general of operands of the shapes `plan` was made for.
Tensor planned_dot_general(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan,
                           DType result_dtype);

// The result shape of dot_general over operands of these shapes (the spec's rule above); throws
// ndbuf::Error for invalid dimension numbers and mismatched batching or contracting sizes.
Shape dot_general_shape(const Shape& lhs, const Shape& rhs, const DotDimensions& dims);

// stablehlo.dot's dimension numbers: rank-1 or rank-2 operands, the last lhs dim contracted
// with the first rhs dim; throws ndbuf::Error for other ranks.
DotDimensions dot_dimensions(const Shape& lhs, const Shape& rhs);

// stablehlo.dot: rank-1 or rank-2 operands, contracting the last lhs dim with the first rhs dim.
Tensor dot(const Tensor& lhs, const Tensor& rhs, DType result_dtype);

}  // namespace ndbuf::program
