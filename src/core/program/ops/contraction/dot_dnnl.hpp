// Products through oneDNN's matmul where the build found it (NDBUF_HAVE_DNNL): bf16 (on CPUs
// with bf16 dot-product instructions it multiplies bf16 directly, accumulating in f32 and
// rounding each result once, as the widening path does), and f32 products large enough that
// oneDNN's kernels beat the BLAS's (dot_dnnl.cpp has the measurements). Its results do not
// depend on the thread count.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_pack.hpp"

namespace ndbuf::program {

// Computes `result` (dense row-major bf16 or f32: batch, lhs free, rhs free) and returns true,
// or returns false with `result` untouched: other dtypes, smaller f32 products, dim groups that
// do not collapse to one stride each, a forked child, no optimised kernel for this CPU, or an
// error of oneDNN's.
bool dot_through_dnnl(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
                      Tensor& result);

}  // namespace ndbuf::program
