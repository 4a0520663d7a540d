// The type an element is computed in (float for f16 / bf16 / f8, the element type otherwise) and
// the two conversions every kernel family uses to get there and back, rounding once.
#pragma once

#include <complex>
#include <type_traits>

#include "convert/half_kernels.hpp"
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

// f16 and bf16 convert inline in f32 arithmetic (half_kernels.hpp), so loops over them
// vectorise; the out-of-line conversions through double took 90% of a bf16 negate's time.
template <class T>
inline Compute<T> load(T v) noexcept {
  if constexpr (std::is_same_v<T, Half>) {
    return quiet_f32_of_f16(v.bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return quiet_f32_of_bf16(v.bits);
  } else if constexpr (kIsNarrowFloat<T>) {
    return static_cast<float>(to_double(v));
  } else {
    return v;
  }
}

// Rounds once to the element type (the narrow floats round to nearest, ties to even).
template <class T>
inline T store(Compute<T> v) noexcept {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{f16_of_f32(v)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{bf16_of_f32_bits(f32_bits(v))};
  } else if constexpr (kIsNarrowFloat<T>) {
    return narrow_float_from_double<T>(static_cast<double>(v));
  } else {
    return v;
  }
}

// What a loop moves for an element of T: the narrow floats move as their bits, since GCC has no
// vector type for a struct and leaves a loop that loads or stores one scalar.
template <class T>
struct LaneOf {
  using type = T;
};
template <>
struct LaneOf<Half> {
  using type = uint16_t;
};
template <>
struct LaneOf<BFloat16> {
  using type = uint16_t;
};
template <class T>
using Lane = typename LaneOf<T>::type;

// The elements at `p` as lanes (a Half is its one uint16_t member, at its address).
template <class T>
inline const Lane<T>* lanes(const T* p) noexcept {
  return reinterpret_cast<const Lane<T>*>(p);
}
template <class T>
inline Lane<T>* lanes(T* p) noexcept {
  return reinterpret_cast<Lane<T>*>(p);
}
template <class T>
inline T element_of(Lane<T> lane) noexcept {
  if constexpr (std::is_same_v<T, Lane<T>>) {
    return lane;
  } else {
    return T{lane};
  }
}
template <class T>
inline Lane<T> lane_of(T value) noexcept {
  if constexpr (std::is_same_v<T, Lane<T>>) {
    return value;
  } else {
    return value.bits;
  }
}

}  // namespace ndbuf::program
