// stablehlo.reduce_window: a reduction over sliding windows (strides, dilations, padding).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// The window attributes of reduce_window and select_and_scatter, one entry per operand dim.
// An empty vector means the spec's default (strides and dilations 1, padding 0).
struct WindowConfig {
  std::vector<int64_t> window_dimensions;
  std::vector<int64_t> window_strides;
  std::vector<int64_t> base_dilations;
  std::vector<int64_t> window_dilations;
  std::vector<std::pair<int64_t, int64_t>> padding;  // (low, high); may be negative
};

// The result shape of a window reduction over `operand_shape` (the spec's formula). Throws
// ndbuf::Error when the config does not match the rank or has a non-positive size.
Shape reduce_window_shape(const Shape& operand_shape, const WindowConfig& window);

// Each result element is the reduction of its window of the padded, base-dilated inputs, where
// padding and dilation holes hold the init values (as the spec pads with them). Result i has
// the dtype of init_values[i]. `fast` as in reduce().
std::vector<Tensor> reduce_window(const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& init_values,
                                  const WindowConfig& window, const RegionFn& body,
                                  FastBody fast = FastBody::kNone);

}  // namespace ndbuf::program
