// The one index odometer of the core: walks two strided layouts of one shape in step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndbuf/base/shape.hpp"

namespace ndbuf {

// Element positions in two layouts `a` and `b` of `shape`, stepping through every combination
// of the walked `axes` (the last of them fastest); the other axes stay at index 0. Keeps
// references to shape and strides, which must outlive it.
class StridedOdometer {
 public:
  // Starts at combination `first` of the walked axes (so parallel blocks each walk their own
  // range).
  StridedOdometer(const Shape& shape, const Strides& a, const Strides& b, std::vector<size_t> axes,
                  int64_t first = 0)
      : shape_(shape), a_(a), b_(b), axes_(std::move(axes)), index_(shape.size(), 0) {
    for (size_t j = axes_.size(); j-- > 0 && first > 0;) {
      const size_t axis = axes_[j];
      index_[axis] = first % shape_[axis];
      first /= shape_[axis];
      pos_a_ += index_[axis] * a_[axis];
      pos_b_ += index_[axis] * b_[axis];
    }
  }

  int64_t a() const noexcept { return pos_a_; }
  int64_t b() const noexcept { return pos_b_; }
  // The index along every axis of `shape`.
  const std::vector<int64_t>& index() const noexcept { return index_; }

  // Steps to the next combination; after the last it returns false, back at the first.
  bool next() noexcept {
    for (size_t j = axes_.size(); j-- > 0;) {
      const size_t axis = axes_[j];
      if (++index_[axis] < shape_[axis]) {
        pos_a_ += a_[axis];
        pos_b_ += b_[axis];
        return true;
      }
      pos_a_ -= a_[axis] * (shape_[axis] - 1);
      pos_b_ -= b_[axis] * (shape_[axis] - 1);
      index_[axis] = 0;
    }
    return false;
  }

 private:
  const Shape& shape_;
  const Strides& a_;
  const Strides& b_;
  std::vector<size_t> axes_;
  std::vector<int64_t> index_;
  int64_t pos_a_ = 0;
  int64_t pos_b_ = 0;
};

// The axes [0, count) in order: a row-major walk over the leading axes.
inline std::vector<size_t> leading_axes(size_t count) {
  std::vector<size_t> axes(count);
  for (size_t k = 0; k < count; ++k) axes[k] = k;
  return axes;
}

// Calls visit(src_pos, dst_pos) for `count` combinations of the `outer` axes, starting at
// combination `first`.
template <class Visit>
void walk_strided(const Shape& shape, const Strides& src, const Strides& dst,
                  std::vector<size_t> outer, int64_t first, int64_t count, Visit&& visit) {
  StridedOdometer odometer(shape, src, dst, std::move(outer), first);
  for (int64_t n = 0; n < count; ++n) {
    visit(odometer.a(), odometer.b());
    odometer.next();
  }
}

}  // namespace ndbuf
