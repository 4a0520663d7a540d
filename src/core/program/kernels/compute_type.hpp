// The type an element is computed in (float for f16 / bf16 / f8, the element type otherwise) and
// the two conversions every kernel family uses to get there and back, rounding once.
#pragma once

#include <complex>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"

namespace ndbuf::program {

template <class T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<Half> {
  using type = float;
};
template <>
struct ComputeOf<BFloat16> {
  using type = float;
};
template <>
struct ComputeOf<Float8E4M3FN> {
  using type = float;
};
template <>
struct ComputeOf<Float8E5M2> {
  using type = float;
};
template <class T>
using Compute = typename ComputeOf<T>::type;

template <class T>
struct IsComplex : std::false_type {};
template <class R>
struct IsComplex<std::complex<R>> : std::true_type {};
template <class T>
inline constexpr bool kIsComplex = IsComplex<T>::value;

template <class T>
inline Compute<T> load(T v) noexcept {
  if constexpr (kIsNarrowFloat<T>) {
    return static_cast<float>(to_double(v));
  } else {
    return v;
  }
}

// Rounds once to the element type (the narrow floats round to nearest, ties to even).
template <class T>
inline T store(Compute<T> v) noexcept {
  if constexpr (kIsNarrowFloat<T>) {
    return narrow_float_from_double<T>(static_cast<double>(v));
  } else {
    return v;
  }
}

}  // namespace ndbuf::program
