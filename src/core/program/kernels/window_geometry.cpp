// Window attribute checks and the per-dim source tables of window reductions.
#include "program/kernels/window_geometry.hpp"

#include <algorithm>

#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {
namespace {

std::vector<int64_t> or_default(const std::vector<int64_t>& v, size_t rank, int64_t value,
                                const std::string& name, const std::string& op) {
  if (v.empty()) return std::vector<int64_t>(rank, value);
  if (v.size() != rank) kernel_error(op, name + " needs one entry per operand dim.");
  for (int64_t x : v) {
    if (x <= 0) kernel_error(op, name + " must be positive, not " + std::to_string(x) + ".");
  }
  return v;
}

}  // namespace

WindowGeometry window_geometry(const Shape& input, const WindowConfig& window,
                               const std::string& op) {
  const size_t rank = input.size();
  if (window.window_dimensions.size() != rank) {
    kernel_error(op, "window_dimensions needs one entry per operand dim.");
  }
  const auto dims = or_default(window.window_dimensions, rank, 1, "window_dimensions", op);
  const auto strides = or_default(window.window_strides, rank, 1, "window_strides", op);
  const auto base = or_default(window.base_dilations, rank, 1, "base_dilations", op);
  const auto dilation = or_default(window.window_dilations, rank, 1, "window_dilations", op);
  auto padding = window.padding;
  if (padding.empty()) padding.assign(rank, {0, 0});
  if (padding.size() != rank) kernel_error(op, "padding needs one (low, high) pair per dim.");
  WindowGeometry g;
  g.window_shape = dims;
  g.source.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dilated = input[d] == 0 ? 0 : (input[d] - 1) * base[d] + 1;
    const int64_t padded = padding[d].first + dilated + padding[d].second;
    const int64_t span = (dims[d] - 1) * dilation[d] + 1;
    const int64_t count = padded <= 0 || span > padded ? 0 : (padded - span) / strides[d] + 1;
    g.result_shape.push_back(count);
    g.source[d].resize(static_cast<size_t>(count * dims[d]));
    for (int64_t o = 0; o < count; ++o) {
      for (int64_t w = 0; w < dims[d]; ++w) {
        const int64_t p = o * strides[d] + w * dilation[d] - padding[d].first;
        const bool real = p >= 0 && p < dilated && p % base[d] == 0;
        g.source[d][o * dims[d] + w] = real ? p / base[d] : -1;
      }
    }
  }
  return g;
}

void walk_windows(const WindowGeometry& g, const Shape& input, const WindowVisit& visit) {
  const size_t rank = input.size();
  const Strides strides = row_major_strides(input);
  const int64_t results = checked_numel(g.result_shape);
  const int64_t window = checked_numel(g.window_shape);
  std::vector<int64_t> offsets(window), out(rank, 0), w(rank, 0);
  for (int64_t r = 0; r < results; ++r) {
    std::fill(w.begin(), w.end(), 0);
    for (int64_t i = 0; i < window; ++i) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank && offset >= 0; ++d) {
        const int64_t src = g.source[d][out[d] * g.window_shape[d] + w[d]];
        offset = src < 0 ? -1 : offset + src * strides[d];
      }
      offsets[i] = offset;
      next_index(w, g.window_shape);
    }
    visit(r, offsets);
    next_index(out, g.result_shape);
  }
}

}  // namespace ndbuf::program
