// The one scalar definition of `compare` on real elements, as the element-wise kernel computes
// it (elementwise_compare.cpp): floats in their compute type, IEEE or total order; integers
// and pred as they are. Element programs and key sorts call it.
#pragma once

#include <type_traits>

#include "program/kernels/compute_type.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"

namespace ndbuf::program {

template <class Rel, class T>
inline bool compare_real(Rel rel, CompareType type, T a, T b) {
  if constexpr (std::is_floating_point_v<Compute<T>>) {
    if (type == CompareType::kTotalOrder) {
      return rel(detail::total_order_key(load(a)), detail::total_order_key(load(b)));
    }
    return rel(load(a), load(b));
  } else {
    return rel(a, b);
  }
}

// f(rel) with the relation of `direction` as a function object.
template <class F>
inline decltype(auto) with_relation(CompareDirection direction, F&& f) {
  switch (direction) {
    case CompareDirection::kEQ:
      return f([](auto u, auto v) { return u == v; });
    case CompareDirection::kNE:
      return f([](auto u, auto v) { return u != v; });
    case CompareDirection::kGE:
      return f([](auto u, auto v) { return u >= v; });
    case CompareDirection::kGT:
      return f([](auto u, auto v) { return u > v; });
    case CompareDirection::kLE:
      return f([](auto u, auto v) { return u <= v; });
    case CompareDirection::kLT:
      break;
  }
  return f([](auto u, auto v) { return u < v; });
}

}  // namespace ndbuf::program
