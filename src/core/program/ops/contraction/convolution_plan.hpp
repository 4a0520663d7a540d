// What the convolution's two paths share: the operands' sizes in one canonical layout (lhs as
// batch x spatial... x feature, rhs as spatial... x input feature x output feature), the groups,
// where each (output position, kernel position) reads the input, and where results go.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/convolution.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {

struct ConvPlan {
  int64_t images = 0;        // lhs batch
  int64_t features = 0;      // lhs features
  int64_t out_batch = 0;     // images / batch_group_count
  int64_t out_features = 0;  // kernel output features
  int64_t groups = 1;        // feature_group_count * batch_group_count (one of them is 1)
  bool batch_grouped = false;
  int64_t group_in = 0;   // kernel input features, read by each group
  int64_t group_out = 0;  // output features each group writes
  Shape in_spatial, kernel_spatial, out_spatial;
  int64_t in_positions = 1, kernel_positions = 1, out_positions = 1;
  std::vector<WindowAxis> axes;               // per spatial dim, the window walk over the input
  std::vector<bool> reversed;                 // per spatial dim, window_reversal
  std::vector<int64_t> lhs_order, rhs_order;  // dims in the canonical layouts
  // Element strides of the row-major result for the output batch, feature and spatial dims.
  int64_t batch_stride = 0, feature_stride = 0;
  std::vector<int64_t> spatial_strides;

  // The input image and first input feature of output batch n in group g.
  int64_t image(int64_t n, int64_t g) const { return batch_grouped ? g * out_batch + n : n; }
  int64_t first_feature(int64_t g) const { return batch_grouped ? 0 : g * group_in; }
  // The input index that output index o and kernel index k of spatial dim d read (window
  // reversal included), or -1 for padding and dilation holes.
  int64_t source(size_t d, int64_t o, int64_t k) const {
    return axes[d].source(o, reversed[d] ? kernel_spatial[d] - 1 - k : k);
  }
  // The result offset of output position p (row-major over out_spatial).
  int64_t position_offset(int64_t p) const {
    int64_t offset = 0;
    for (size_t d = out_spatial.size(); d-- > 0;) {
      offset += (p % out_spatial[d]) * spatial_strides[d];
      p /= out_spatial[d];
    }
    return offset;
  }
};

// The plan for operands of these shapes; `config` must have passed convolution_shape().
ConvPlan plan_convolution(const Shape& lhs, const Shape& rhs, const ConvConfig& config);

// Computes `result` (dense row-major, float result dtype) through sgemm / dgemm and returns
// true, or returns false (result untouched) where the BLAS cannot take it: another dtype, a
// size past its 32-bit integers, or a forked child. Throws only after its parallel loop.
bool convolution_through_gemm(const Tensor& lhs, const Tensor& rhs, const ConvPlan& plan,
                              Tensor& result);

}  // namespace ndbuf::program
