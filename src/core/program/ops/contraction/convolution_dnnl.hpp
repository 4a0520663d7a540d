// Convolutions through oneDNN where the build found it (NDBUF_HAVE_DNNL): f32, one to three
// spatial dims, feature groups, strides, non-negative padding and kernel dilation; the GEMM path
// (convolution_gemm.cpp) takes the rest, and everything in builds without oneDNN.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/convolution.hpp"

namespace ndbuf::program {

// Computes `result` (dense row-major f32) and returns true, or returns false with `result`
// untouched where oneDNN does not take the convolution (another dtype, base dilation, window
// reversal, batch groups, negative padding, a forked child, or an error of oneDNN's).
// `config` must have passed convolution_shape().
bool convolution_through_dnnl(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                              Tensor& result);

}  // namespace ndbuf::program
