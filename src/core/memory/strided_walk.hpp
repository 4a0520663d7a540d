// Walking two strided layouts of one shape in step (internal to the core's copy kernels).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndbuf/base/shape.hpp"

namespace ndbuf {

// Calls visit(src_pos, dst_pos) for `count` combinations of the `outer` axes, starting at
// combination `first` (an odometer, the last of `outer` fastest); positions are in elements.
// Starting mid-way lets parallel blocks each walk their own range.
template <class Visit>
void walk_strided(const Shape& shape, const Strides& src, const Strides& dst,
                  const std::vector<size_t>& outer, int64_t first, int64_t count, Visit&& visit) {
  std::vector<int64_t> counter(shape.size(), 0);
  int64_t src_pos = 0;
  int64_t dst_pos = 0;
  for (size_t j = outer.size(); j-- > 0 && first > 0;) {
    const size_t axis = outer[j];
    counter[axis] = first % shape[axis];
    first /= shape[axis];
    src_pos += counter[axis] * src[axis];
    dst_pos += counter[axis] * dst[axis];
  }
  for (int64_t n = 0; n < count; ++n) {
    visit(src_pos, dst_pos);
    for (size_t j = outer.size(); j-- > 0;) {
      const size_t axis = outer[j];
      if (++counter[axis] < shape[axis]) {
        src_pos += src[axis];
        dst_pos += dst[axis];
        break;
      }
      src_pos -= src[axis] * (shape[axis] - 1);
      dst_pos -= dst[axis] * (shape[axis] - 1);
      counter[axis] = 0;
    }
  }
}

}  // namespace ndbuf
