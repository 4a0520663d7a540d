// The reduce_window tests' reference: windows of an explicitly padded and dilated array.
#pragma once

#include <functional>
#include <random>
#include <vector>

#include "program/ops/reduction/reduce_window.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {

// A window of 1 to 3 elements per dim with strides, dilations and padding of up to 2.
inline WindowConfig random_window(std::mt19937& rng, size_t rank) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  WindowConfig w;
  for (size_t d = 0; d < rank; ++d) {
    w.window_dimensions.push_back(pick(1, 3));
    w.window_strides.push_back(pick(1, 2));
    w.base_dilations.push_back(pick(1, 2));
    w.window_dilations.push_back(pick(1, 2));
    w.padding.push_back({pick(0, 2), pick(0, 2)});
  }
  return w;
}

// Reference: materialise the dilated, padded input (filled with init), then slide windows,
// folding each in row-major window order: acc = combine(acc, element), from init.
inline std::vector<double> naive(
    const std::vector<double>& x, const Shape& s, const WindowConfig& w, double init,
    Shape& out_shape,
    const std::function<double(double, double)>& combine = [](double a, double b) {
      return a + b;
    }) {
  const size_t rank = s.size();
  Shape ps(rank);
  for (size_t d = 0; d < rank; ++d) {
    ps[d] = (s[d] - 1) * w.base_dilations[d] + 1 + w.padding[d].first + w.padding[d].second;
  }
  std::vector<double> padded(checked_numel(ps), init);
  for (size_t e = 0; e < x.size(); ++e) {
    auto i = unflatten(e, s);
    for (size_t d = 0; d < rank; ++d) i[d] = i[d] * w.base_dilations[d] + w.padding[d].first;
    padded[flatten(i, ps)] = x[e];
  }
  out_shape.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t span = (w.window_dimensions[d] - 1) * w.window_dilations[d] + 1;
    out_shape[d] = ps[d] < span ? 0 : (ps[d] - span) / w.window_strides[d] + 1;
  }
  std::vector<double> out(checked_numel(out_shape), init);
  for (size_t o = 0; o < out.size(); ++o) {
    const auto oi = unflatten(o, out_shape);
    for (int64_t k = 0; k < checked_numel(w.window_dimensions); ++k) {
      auto wi = unflatten(k, w.window_dimensions);
      for (size_t d = 0; d < rank; ++d)
        wi[d] = oi[d] * w.window_strides[d] + wi[d] * w.window_dilations[d];
      out[o] = combine(out[o], padded[flatten(wi, ps)]);
    }
  }
  return out;
}

}  // namespace ndbuf::program::testing
