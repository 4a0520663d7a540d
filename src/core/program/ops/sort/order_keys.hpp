// Comparison keys for sorting: floats in IEEE order or in the total order, complex numbers
// lexicographically, integers as they are.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// The element as a signed integer that orders like the total order of floats:
// -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN (negative patterns have their magnitude
// bits flipped so that larger magnitudes sort lower).
template <class T>
auto total_order_key(T v) {
  if constexpr (kIsNarrowFloat<T> && sizeof(T) == 1) {
    const auto bits = static_cast<int8_t>(v.bits);
    return static_cast<int8_t>(bits < 0 ? bits ^ 0x7f : bits);
  } else if constexpr (kIsNarrowFloat<T>) {
    const auto bits = static_cast<int16_t>(v.bits);
    return static_cast<int16_t>(bits < 0 ? bits ^ 0x7fff : bits);
  } else if constexpr (std::is_same_v<T, float>) {
    int32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? bits ^ 0x7fffffff : bits;
  } else if constexpr (std::is_same_v<T, double>) {
    int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? bits ^ 0x7fffffffffffffff : bits;
  } else {
    return v;
  }
}

// The element as compared by `compare ..., FLOAT` (or SIGNED / UNSIGNED for integers):
// the narrow floats widened to float, everything else unchanged.
template <class T>
auto ieee_key(T v) {
  return load(v);
}

// a < b on keys: complex lexicographically on (real, imag), IEEE for floats (false with NaN).
template <class K>
bool key_less(const K& a, const K& b) {
  return value_less(a, b);
}

// a <direction> b on keys: a recognised comparator region (sort's, select_and_scatter's
// select); false for kNone.
template <class K>
bool keys_in_order(const K& a, const K& b, ComparatorOrder direction) {
  switch (direction) {
    case ComparatorOrder::kLessThan:
      return key_less(a, b);
    case ComparatorOrder::kLessEqual:
      return key_less(a, b) || a == b;
    case ComparatorOrder::kGreaterThan:
      return key_less(b, a);
    case ComparatorOrder::kGreaterEqual:
      return key_less(b, a) || a == b;
    case ComparatorOrder::kNone:
      break;
  }
  return false;
}

}  // namespace ndbuf::program
