// stablehlo.convolution: windows of lhs contracted with the kernel rhs, in any layout, any
// number of spatial dims, with strides, padding, both dilations, window reversal and feature or
// batch groups. Float results take the GEMM path (convolution_gemm.cpp); every other result
// dtype, and the cases the BLAS cannot take, the plain loops of convolution.cpp.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// The dimension numbers, named as in the spec.
struct ConvDimensions {
  int64_t input_batch = 0;
  int64_t input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0;
  int64_t kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0;
  int64_t output_feature = 0;
  std::vector<int64_t> output_spatial;
};

// One entry per spatial dim; an empty list stands for the spec's default (strides and
// dilations 1, no padding, no reversal).
struct ConvWindow {
  std::vector<int64_t> strides;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<int64_t> lhs_dilation;
  std::vector<int64_t> rhs_dilation;
  std::vector<bool> reversal;
};

struct ConvConfig {
  ConvDimensions dims;
  ConvWindow window;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
};

// Checks `config` against operands of these shapes (every constraint of the spec, sizes
// overflow-checked; throws ndbuf::Error naming "convolution"), fills the window's defaults and
// returns the result shape.
Shape convolution_shape(const Shape& lhs, const Shape& rhs, ConvConfig& config);

// The convolution with its result in `result_dtype` (operands converted to it first).
// Integers wrap, f16 / bf16 accumulate in f32 and are rounded once, pred is OR of ANDs;
// precision config has no effect (as on XLA's CPU). `config` must have passed
// convolution_shape().
Tensor convolution(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                   DType result_dtype);

// The plain loops alone, whatever the dtype (the tests compare the GEMM path with it).
Tensor convolution_reference(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                             DType result_dtype);

}  // namespace ndbuf::program
