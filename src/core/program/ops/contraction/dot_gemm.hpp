// dot_general on f16 / bf16 / f32 / f64 results through the BLAS gemm.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_pack.hpp"

namespace ndbuf::program {

// Computes `result` (allocated dense row-major: batch, lhs free, rhs free) from host operands
// through sgemm / dgemm and returns true, or returns false (result untouched) where the BLAS
// cannot take the product: a non-float result dtype, a size past the BLAS's 32-bit integers,
// or a process forked from one that had started threads.
bool dot_through_gemm(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
                      Tensor& result);

}  // namespace ndbuf::program
