// Where the elements of each window of reduce_window / select_and_scatter come from.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ndbuf/base/shape.hpp"
#include "program/kernels/reduce_window.hpp"

namespace ndbuf::program {

struct WindowGeometry {
  Shape result_shape;
  Shape window_shape;
  // Per dim d: source[d][o * window_shape[d] + w] is the input index that window element w of
  // result position o reads, or -1 for padding and base-dilation holes.
  std::vector<std::vector<int64_t>> source;
};

// Checks `window` against `input` (throws ndbuf::Error naming `op`) and tabulates it.
WindowGeometry window_geometry(const Shape& input, const WindowConfig& window,
                               const std::string& op);

// Calls visit(result_flat, offsets) for each result position in row-major order, where
// offsets[i] is the input element offset (row-major strides of `input`) of the window's i-th
// element in row-major order, or -1 where it reads padding.
using WindowVisit = std::function<void(int64_t, const std::vector<int64_t>&)>;
void walk_windows(const WindowGeometry& g, const Shape& input, const WindowVisit& visit);

}  // namespace ndbuf::program
