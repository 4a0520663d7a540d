// A shape seen as [outer, length, inner] around one axis: the kernels that walk along an axis
// (scans, counter layouts) index elements as (o * length + t) * inner + i.
#pragma once

#include <cstdint>

#include "ndbuf/base/shape.hpp"

namespace ndbuf::program {

struct AxisExtent {
  int64_t outer = 1;   // product of the dims before the axis
  int64_t length = 1;  // the axis's size (1 for a 0-d shape)
  int64_t inner = 1;   // product of the dims after it
};

inline AxisExtent axis_extent(const Shape& shape, size_t axis) {
  AxisExtent e;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k < axis) e.outer *= shape[k];
    if (k == axis) e.length = shape[k];
    if (k > axis) e.inner *= shape[k];
  }
  return e;
}

}  // namespace ndbuf::program
