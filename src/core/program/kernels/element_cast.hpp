// Converting one element between any two of the 15 dtypes' C++ types (for kernels whose result
// dtype differs from their operands').
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"
#include "program/kernels/compute_type.hpp"

namespace ndbuf::program {

// Floats to integers saturate and NaN becomes 0 (the spec leaves out-of-range conversions to
// the implementation); integers to integers wrap; complex to real keeps the real part.
template <class To, class From>
To cast_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return cast_element<To>(to_double(v));
  } else if constexpr (std::is_same_v<To, Half>) {
    return to_half(cast_element<double>(v));
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return to_bfloat16(cast_element<double>(v));
  } else if constexpr (IsComplex<From>::value && IsComplex<To>::value) {
    using R = typename To::value_type;
    return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else if constexpr (IsComplex<From>::value) {
    return cast_element<To>(v.real());
  } else if constexpr (IsComplex<To>::value) {
    return To(static_cast<typename To::value_type>(v), 0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    if (std::isnan(v)) return 0;
    if (v <= static_cast<From>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (v >= static_cast<From>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ndbuf::program
