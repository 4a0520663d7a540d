// The recognised select regions of select_and_scatter (a comparison of the current pick with
// the next element) as a function fixed at compile time.
#pragma once

#include <type_traits>

#include "program/kernels/region_body.hpp"
#include "program/ops/sort/order_keys.hpp"

namespace ndbuf::program {

// Calls `f` with keep(pick, next), the select region of `c` (keep the pick while it holds),
// its direction fixed at compile time so that loops over elements hold no branch on it.
template <class T, class F>
void with_keep(FastComparator c, F&& f) {
  const auto by = [&](auto key) {
    const auto in = [&](auto direction) {
      f([key](T a, T b) { return keys_in_order(key(a), key(b), decltype(direction)::value); });
    };
    switch (c.direction) {
      case ComparatorOrder::kLessThan:
        return in(std::integral_constant<ComparatorOrder, ComparatorOrder::kLessThan>());
      case ComparatorOrder::kLessEqual:
        return in(std::integral_constant<ComparatorOrder, ComparatorOrder::kLessEqual>());
      case ComparatorOrder::kGreaterThan:
        return in(std::integral_constant<ComparatorOrder, ComparatorOrder::kGreaterThan>());
      default:
        return in(std::integral_constant<ComparatorOrder, ComparatorOrder::kGreaterEqual>());
    }
  };
  if (c.total_order) {
    by([](T v) { return total_order_key(v); });
  } else {
    by([](T v) { return ieee_key(v); });
  }
}

}  // namespace ndbuf::program
