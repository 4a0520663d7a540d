// Slicing a tensor into a view, with the rules of Rust's ndarray (and of harmonium's
// HArray$slice()): per axis either an index, which removes the axis, or a range
// start/end/step over [start, end) that keeps it. The view shares the storage; only the
// offset, shape and strides change, so slicing is O(rank) whatever the tensor's size.
//
// Positions are 0-based; a negative index, start or end counts from the back of the axis
// (len + x). Messages name axes 1-based ("axis 1" is the first entry of the spec), values as
// the user gave them and the axis length.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// One axis of a slice. An index removes the axis. A range keeps it: `start` defaults to 0,
// `end` to the axis length, `step` to 1. start > end (after resolving negatives) gives an
// empty axis. A negative step takes the elements of [start, end) and walks them from end - 1
// downward by |step| (ndarray's rule: on length 4, step -2 gives 3, 1).
struct AxisSlice {
  enum class Kind { kIndex, kRange };
  Kind kind = Kind::kRange;
  int64_t index = 0;
  std::optional<int64_t> start;
  std::optional<int64_t> end;
  std::optional<int64_t> step;

  static AxisSlice at(int64_t i) {
    AxisSlice s;
    s.kind = Kind::kIndex;
    s.index = i;
    return s;
  }
  static AxisSlice range(std::optional<int64_t> start = std::nullopt,
                         std::optional<int64_t> end = std::nullopt,
                         std::optional<int64_t> step = std::nullopt) {
    AxisSlice s;
    s.start = start;
    s.end = end;
    s.step = step;
    return s;
  }
};

using SliceSpec = std::vector<AxisSlice>;

// Parses one axis of a spec as the R API gives it: 1 value (an index) or 3 values (start,
// end, step), where `missing` marks a part left at its default. `axis` is 0-based (it only
// names the axis in messages). Throws kInvalidArgument for any other length or a missing index.
AxisSlice parse_axis_slice(const int32_t* values, size_t count, int32_t missing, size_t axis);

// The resolved form of a range on an axis of length `len`: the view's first position on the
// axis, its length and the factor applied to the stride (negative for a reversed walk).
struct ResolvedRange {
  int64_t first;
  int64_t length;
  int64_t step;
};

// Resolves and validates a range on one axis (0-based `axis`, for messages). Throws kIndex
// for start or end outside [-len, len] and kInvalidArgument for a zero step.
ResolvedRange resolve_range(const AxisSlice& range, int64_t len, size_t axis);
// Resolves an index on one axis; throws kIndex unless -len <= i < len.
int64_t resolve_index(int64_t index, int64_t len, size_t axis);

// Applies `spec` (one entry per axis of `tensor`) and returns the view. Throws
// kInvalidArgument when the spec length differs from the rank.
Tensor slice(const Tensor& tensor, const SliceSpec& spec);

}  // namespace ndbuf
