// Scalar semantics of the element-wise ops that C++ leaves undefined or differs on: wrapping
// integer arithmetic, XLA's integer division and power, shifts past the width, NaN-propagating
// maximum / minimum, IEEE total order and lexicographic complex order.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace ndbuf::program::detail {

// Unsigned arithmetic at least as wide as int, so that no operand is promoted to signed int
// (uint16_t * uint16_t would be a signed, overflowing multiplication).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

// Two's complement wrap-around, computed without signed overflow.
template <class T>
inline T wrap_add(T a, T b) {
  return static_cast<T>(Wide<T>(a) + Wide<T>(b));
}
template <class T>
inline T wrap_sub(T a, T b) {
  return static_cast<T>(Wide<T>(a) - Wide<T>(b));
}
template <class T>
inline T wrap_mul(T a, T b) {
  return static_cast<T>(Wide<T>(a) * Wide<T>(b));
}
template <class T>
inline T wrap_neg(T a) {
  return static_cast<T>(Wide<T>(0) - Wide<T>(a));
}

// XLA's integer division: x / 0 has all bits set (-1 signed, the maximum unsigned) and
// INT_MIN / -1 wraps to INT_MIN; otherwise C++'s truncating division.
template <class T>
inline T int_divide(T a, T b) {
  if (b == 0) return static_cast<T>(~T{0});
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  }
  return static_cast<T>(a / b);
}

// XLA's integer remainder: x % 0 = x and INT_MIN % -1 = 0; the sign follows the dividend.
template <class T>
inline T int_remainder(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Exponentiation by squaring with wrap-around. A negative exponent (XLA): 1 for base 1,
// +-1 for base -1 by parity, 0 otherwise (the integer part of 1 / base^-n).
template <class T>
inline T int_power(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  auto e = static_cast<std::make_unsigned_t<T>>(exponent);
  while (e != 0) {
    if (e & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return result;
}

// Shift amounts are read as unsigned, so a negative amount is past the width. Past the width,
// shift_left and shift_right_logical give 0 and shift_right_arithmetic fills with the sign.
template <class T>
inline T shift_left(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(amount) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<Wide<T>>(static_cast<U>(a)) << static_cast<U>(amount));
}
template <class T>
inline T shift_right_logical(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<U>(amount) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(a) >> static_cast<U>(amount));
}
template <class T>
inline T shift_right_arithmetic(T a, T amount) {
  using U = std::make_unsigned_t<T>;
  using S = std::make_signed_t<T>;
  const auto sa = static_cast<S>(a);
  // Right shift of a negative signed value is arithmetic on every compiler we build with
  // (and defined so from C++20).
  if (static_cast<U>(amount) >= sizeof(T) * 8) return static_cast<T>(sa < 0 ? S(-1) : S(0));
  return static_cast<T>(static_cast<S>(sa >> static_cast<U>(amount)));
}

template <class T>
inline T popcount(T a) {
  auto u = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a));
  T count = 0;
  while (u != 0) {
    u &= u - 1;
    ++count;
  }
  return count;
}
template <class T>
inline T count_leading_zeros(T a) {
  constexpr int kBits = sizeof(T) * 8;
  const auto u = static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a));
  if (u == 0) return static_cast<T>(kBits);
  return static_cast<T>(__builtin_clzll(u) - (64 - kBits));
}

// IEEE maximum / minimum: NaN propagates and +0 > -0.
template <class C>
inline C float_maximum(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class C>
inline C float_minimum(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Lexicographic (real, imag) order for complex maximum / minimum; NaN parts propagate
// through the element comparisons as in the spec (a NaN part never wins a "<").
template <class R>
inline bool complex_less(const std::complex<R>& a, const std::complex<R>& b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

// A signed integer key whose order is IEEE-754 totalOrder: -NaN < -Inf < ... < -0 < +0 < ...
// < +Inf < +NaN (NaN payloads ordered by magnitude).
template <class C>
inline auto total_order_key(C v) {
  using S = std::conditional_t<sizeof(C) == 8, int64_t, int32_t>;
  S bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits < 0 ? static_cast<S>(bits ^ std::numeric_limits<S>::max()) : bits;
}

}  // namespace ndbuf::program::detail
