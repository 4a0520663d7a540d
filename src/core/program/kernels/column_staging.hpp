// When a loop over R's column-major arrays should run in their memory order: every operand it
// reads is dense column-major or a splat. Its result is then written column-major where the
// layout is free, or staged column-major and transposed once into a row-major result (the
// element-wise kernels' map_through_columns(), fused loops in exec/fused_run.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ndbuf/base/shape.hpp"

namespace ndbuf::program {

// Row-major results up to this size are staged column-major; larger ones keep the strided walk
// rather than hold a second copy of the result.
inline constexpr int64_t kMaxStagedBytes = int64_t{64} << 20;

// Whether the `count` operands (`strides_of(k)` over `shape`, empty or all zeros for a splat or
// a 0-d operand) can be read in column-major order: each dense column-major or a splat, at
// least one the former, and the two orders lay `shape` out differently.
template <class StridesOf>
bool reads_column_major(const Shape& shape, size_t count, StridesOf strides_of) {
  // The two orders' strides differ unless every axis has length 0 or 1 (the first axis's
  // row-major stride is the product of the others, its column-major one is 1, and likewise for
  // the last axis).
  if (shape.size() < 2 ||
      std::all_of(shape.begin(), shape.end(), [](int64_t n) { return n <= 1; })) {
    return false;
  }
  bool any_column_major = false;
  for (size_t k = 0; k < count; ++k) {
    const Strides& strides = strides_of(k);
    if (has_contiguous_strides(shape, strides, Order::kColumnMajor)) {
      any_column_major = true;
    } else if (!std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) {
      return false;
    }
  }
  return any_column_major;
}

}  // namespace ndbuf::program
