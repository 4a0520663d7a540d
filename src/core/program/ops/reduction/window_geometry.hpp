// Where the elements of each window of reduce_window / select_and_scatter come from: per dim a
// few numbers, never a table per result position (memory and time stay O(rank) to plan).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ndbuf/base/shape.hpp"
#include "program/ops/reduction/reduce_window.hpp"

namespace ndbuf::program {

// One dim of a window walk, every size overflow-checked when it was made.
struct WindowAxis {
  int64_t size = 1;      // window elements along the dim
  int64_t stride = 1;    // between consecutive windows
  int64_t dilation = 1;  // between consecutive window elements
  int64_t base = 1;      // base dilation: input element i sits at padded position i * base
  int64_t low = 0;       // low padding (negative: elements cut off)
  int64_t dilated = 0;   // (input - 1) * base + 1, 0 for an empty input
  int64_t count = 0;     // number of windows along the dim

  // Whether windows leave an axis of `length` elements as it is: each window one element,
  // consecutive, no padding, no base dilation.
  bool untouched(int64_t length) const {
    return size == 1 && stride == 1 && base == 1 && low == 0 && count == length;
  }

  // The input index that window element w of window o reads, or -1 for padding and
  // base-dilation holes (o < count and w < size never overflow: the walk stays inside the
  // padded extent, whose size fits int64).
  int64_t source(int64_t o, int64_t w) const {
    const int64_t p = o * stride + w * dilation - low;
    if (p < 0 || p >= dilated) return -1;
    if (base == 1) return p;
    return p % base == 0 ? p / base : -1;
  }
};

struct WindowGeometry {
  Shape result_shape;
  Shape window_shape;
  std::vector<WindowAxis> axes;
};

// Checks `window` against `input` (throws ndbuf::Error naming `op`, also when a size or the
// total number of window elements visited overflows int64) and describes it.
WindowGeometry window_geometry(const Shape& input, const WindowConfig& window,
                               const std::string& op);

// A run of window elements of result position `result` (row-major over the window): `offsets`
// are input element offsets (row-major strides of the input), -1 where padding is read. Each
// window comes in one or more consecutive pieces, the first with `first` set and the last with
// `last` set, so memory stays bounded for any window size.
struct WindowPiece {
  int64_t result;
  const int64_t* offsets;
  int64_t count;
  bool first;
  bool last;
};
using WindowVisit = std::function<void(const WindowPiece&)>;
// Visits every result position in row-major order (polling for user interrupts).
void walk_windows(const WindowGeometry& g, const Shape& input, const WindowVisit& visit);

}  // namespace ndbuf::program
