// The convolution's checks (the spec's constraints, in its order), result shape and plan.
#include <string>

#include "program/kernels/kernel_values.hpp"
#include "program/ops/contraction/convolution.hpp"
#include "program/ops/contraction/convolution_plan.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "convolution";

std::string str(int64_t x) { return std::to_string(x); }

void check_spatial_count(size_t given, size_t spatial, const std::string& what) {
  if (given != spatial) {
    kernel_error(kOp, what + " lists " + str(static_cast<int64_t>(given)) +
                          " spatial dimensions, but the operands have " +
                          str(static_cast<int64_t>(spatial)) + ".");
  }
}

void check_dimension_numbers(const ConvDimensions& d, size_t rank) {
  const size_t spatial = rank - 2;
  check_spatial_count(d.input_spatial.size(), spatial, "input_spatial_dimensions");
  check_spatial_count(d.kernel_spatial.size(), spatial, "kernel_spatial_dimensions");
  check_spatial_count(d.output_spatial.size(), spatial, "output_spatial_dimensions");
  std::vector<int64_t> input = {d.input_batch}, kernel = d.kernel_spatial,
                       output = {d.output_batch};
  input.insert(input.end(), d.input_spatial.begin(), d.input_spatial.end());
  input.push_back(d.input_feature);
  kernel.push_back(d.kernel_input_feature);
  kernel.push_back(d.kernel_output_feature);
  output.insert(output.end(), d.output_spatial.begin(), d.output_spatial.end());
  output.push_back(d.output_feature);
  check_axes(input, rank, kOp, "input dimension");
  check_axes(kernel, rank, kOp, "kernel dimension");
  check_axes(output, rank, kOp, "output dimension");
}

void check_divides(int64_t size, int64_t count, const std::string& what, const std::string& name) {
  if (size % count != 0) {
    kernel_error(
        kOp, what + " (" + str(size) + ") is not a multiple of " + name + " (" + str(count) + ").");
  }
}

void check_groups(const Shape& lhs, const Shape& rhs, const ConvConfig& c) {
  const int64_t fg = c.feature_group_count, bg = c.batch_group_count;
  if (fg <= 0) kernel_error(kOp, "feature_group_count must be positive, not " + str(fg) + ".");
  if (bg <= 0) kernel_error(kOp, "batch_group_count must be positive, not " + str(bg) + ".");
  if (fg > 1 && bg > 1) {
    kernel_error(kOp, "feature_group_count (" + str(fg) + ") and batch_group_count (" + str(bg) +
                          ") cannot both be greater than 1.");
  }
  const ConvDimensions& d = c.dims;
  check_divides(lhs[d.input_batch], bg, "the input batch size", "batch_group_count");
  check_divides(lhs[d.input_feature], fg, "the input feature size", "feature_group_count");
  if (rhs[d.kernel_input_feature] != lhs[d.input_feature] / fg) {
    kernel_error(kOp, "the kernel input feature size (" + str(rhs[d.kernel_input_feature]) +
                          ") should be the input feature size (" + str(lhs[d.input_feature]) +
                          ") / feature_group_count (" + str(fg) + ").");
  }
  check_divides(rhs[d.kernel_output_feature], bg, "the kernel output feature size",
                "batch_group_count");
  check_divides(rhs[d.kernel_output_feature], fg, "the kernel output feature size",
                "feature_group_count");
}

template <class V, class Fill>
void default_list(V& list, size_t spatial, const std::string& name, Fill fill) {
  if (list.empty()) list.assign(spatial, fill);
  check_spatial_count(list.size(), spatial, name);
}

void check_positive(const std::vector<int64_t>& values, const std::string& name) {
  for (int64_t v : values) {
    if (v <= 0) kernel_error(kOp, name + " must be positive, not " + str(v) + ".");
  }
}

WindowConfig window_config(const Shape& rhs, ConvConfig& c, size_t spatial) {
  ConvWindow& w = c.window;
  default_list(w.strides, spatial, "window_strides", int64_t{1});
  default_list(w.padding, spatial, "padding", std::pair<int64_t, int64_t>{0, 0});
  default_list(w.lhs_dilation, spatial, "lhs_dilation", int64_t{1});
  default_list(w.rhs_dilation, spatial, "rhs_dilation", int64_t{1});
  default_list(w.reversal, spatial, "window_reversal", false);
  check_positive(w.strides, "window_strides");
  check_positive(w.lhs_dilation, "lhs_dilation");
  check_positive(w.rhs_dilation, "rhs_dilation");
  WindowConfig config{{}, w.strides, w.lhs_dilation, w.rhs_dilation, w.padding};
  for (int64_t dim : c.dims.kernel_spatial) {
    if (rhs[dim] <= 0) {
      kernel_error(kOp, "the kernel's spatial dimension " + str(dim) +
                            " must have a positive size, not " + str(rhs[dim]) + ".");
    }
    config.window_dimensions.push_back(rhs[dim]);
  }
  return config;
}

WindowGeometry spatial_geometry(const Shape& lhs, const Shape& rhs, ConvConfig& c) {
  if (lhs.size() != rhs.size()) {
    kernel_error(kOp, "lhs " + shape_to_tuple(lhs) + " and rhs " + shape_to_tuple(rhs) +
                          " must have one rank.");
  }
  if (lhs.size() < 2) {
    kernel_error(kOp, "the operands need a batch and a feature dimension, not shape " +
                          shape_to_tuple(lhs) + ".");
  }
  const size_t spatial = lhs.size() - 2;
  check_dimension_numbers(c.dims, lhs.size());
  check_groups(lhs, rhs, c);
  const WindowConfig window = window_config(rhs, c, spatial);
  Shape in_spatial;
  for (int64_t dim : c.dims.input_spatial) in_spatial.push_back(lhs[dim]);
  return window_geometry(in_spatial, window, kOp);
}

}  // namespace

Shape convolution_shape(const Shape& lhs, const Shape& rhs, ConvConfig& config) {
  const WindowGeometry g = spatial_geometry(lhs, rhs, config);
  const ConvDimensions& d = config.dims;
  Shape shape(lhs.size(), 0);
  shape[d.output_batch] = lhs[d.input_batch] / config.batch_group_count;
  shape[d.output_feature] = rhs[d.kernel_output_feature];
  for (size_t k = 0; k < d.output_spatial.size(); ++k)
    shape[d.output_spatial[k]] = g.result_shape[k];
  checked_numel(shape);
  return shape;
}

ConvPlan plan_convolution(const Shape& lhs, const Shape& rhs, const ConvConfig& config) {
  ConvConfig c = config;
  const WindowGeometry g = spatial_geometry(lhs, rhs, c);
  const ConvDimensions& d = c.dims;
  ConvPlan p;
  p.images = lhs[d.input_batch];
  p.features = lhs[d.input_feature];
  p.out_batch = p.images / c.batch_group_count;
  p.out_features = rhs[d.kernel_output_feature];
  p.groups = c.feature_group_count * c.batch_group_count;
  p.batch_grouped = c.batch_group_count > 1;
  p.group_in = rhs[d.kernel_input_feature];
  p.group_out = p.out_features / p.groups;
  p.lhs_order = {d.input_batch};
  p.rhs_order = d.kernel_spatial;
  const Shape result = convolution_shape(lhs, rhs, c);
  const Strides strides = row_major_strides(result);
  for (size_t k = 0; k < d.input_spatial.size(); ++k) {
    const int64_t in = lhs[d.input_spatial[k]], kernel = rhs[d.kernel_spatial[k]];
    const int64_t out = g.result_shape[k];
    p.in_spatial.push_back(in);
    p.kernel_spatial.push_back(kernel);
    p.out_spatial.push_back(out);
    p.lhs_order.push_back(d.input_spatial[k]);
    p.spatial_strides.push_back(strides[d.output_spatial[k]]);
    p.axes.push_back(g.axes[k]);
    p.reversed.push_back(c.window.reversal[k]);
  }
  p.in_positions = checked_numel(p.in_spatial);
  p.kernel_positions = checked_numel(p.kernel_spatial);
  p.out_positions = checked_numel(p.out_spatial);
  p.lhs_order.push_back(d.input_feature);
  p.rhs_order.push_back(d.kernel_input_feature);
  p.rhs_order.push_back(d.kernel_output_feature);
  p.batch_stride = strides[d.output_batch];
  p.feature_stride = strides[d.output_feature];
  return p;
}

}  // namespace ndbuf::program
