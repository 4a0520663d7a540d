// Converting one element between any two of the buffer dtypes' C++ types (for kernels whose result
// dtype differs from their operands').
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"
#include "program/kernels/compute_type.hpp"

namespace ndbuf::program {

// Float -> integer, truncating toward zero and saturating (XLA's choice; the spec leaves
// out-of-range conversions open): NaN -> 0, below the range (-Inf included) -> the minimum,
// above it (+Inf included) -> the maximum.
template <class I>
I saturate_to_integer(double d) {
  if (std::isnan(d)) return 0;
  constexpr int kDigits = std::numeric_limits<I>::digits;   // 63 for i64, 64 for ui64
  const double upper = std::ldexp(1.0, kDigits);            // max + 1, exact in double
  const double lower = std::is_signed_v<I> ? -upper : 0.0;  // min, exact in double
  const double t = std::trunc(d);
  if (t >= upper) return std::numeric_limits<I>::max();
  if (t <= lower) return std::numeric_limits<I>::min();
  return static_cast<I>(t);
}

// Floats to integers saturate and NaN becomes 0 (the spec leaves out-of-range conversions to
// the implementation); integers to integers wrap; complex to real keeps the real part.
template <class To, class From>
To cast_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsNarrowFloat<From>) {
    return cast_element<To>(to_double(v));
  } else if constexpr (kIsNarrowFloat<To>) {
    return narrow_float_from_double<To>(cast_element<double>(v));
  } else if constexpr (IsComplex<From>::value && IsComplex<To>::value) {
    using R = typename To::value_type;
    return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else if constexpr (IsComplex<From>::value) {
    return cast_element<To>(v.real());
  } else if constexpr (IsComplex<To>::value) {
    return To(static_cast<typename To::value_type>(v), 0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return saturate_to_integer<To>(static_cast<double>(v));  // float widens exactly
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ndbuf::program
