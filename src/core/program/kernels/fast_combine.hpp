// The recognised combining bodies (FastBody) as native element operations, so reductions and
// scatters with a common body never call the region.
#pragma once

#include <cmath>
#include <complex>
#include <string>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/error.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// f16 and bf16 accumulate in f32 (Compute<T>) and are rounded once at the end.

template <class A>
bool is_nan_value(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else if constexpr (std::is_integral_v<A>) {
    return false;
  } else {
    return std::isnan(v.real()) || std::isnan(v.imag());
  }
}

// Integers wrap: the arithmetic runs in an unsigned type at least as wide as unsigned int (so
// narrow types are not promoted to a signed int that could overflow).
template <class A>
using WrapType =
    std::conditional_t<sizeof(A) < sizeof(unsigned), unsigned, std::make_unsigned_t<A>>;

template <class A>
A add_values(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<WrapType<A>>(a) + static_cast<WrapType<A>>(b));
  } else {
    return a + b;
  }
}

template <class A>
A multiply_values(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<A>(static_cast<WrapType<A>>(a) * static_cast<WrapType<A>>(b));
  } else {
    return a * b;
  }
}

// a < b as maximum/minimum order: real order, or (real, imag) lexicographically for complex.
template <class A>
bool value_less(A a, A b) {
  if constexpr (std::is_arithmetic_v<A>) {
    return a < b;
  } else {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  }
}

// maximum and minimum propagate NaN, as the element-wise ops do.
template <class A>
A max_values(A a, A b) {
  if (is_nan_value(a)) return a;
  if (is_nan_value(b)) return b;
  return value_less(a, b) ? b : a;
}

template <class A>
A min_values(A a, A b) {
  if (is_nan_value(a)) return a;
  if (is_nan_value(b)) return b;
  return value_less(b, a) ? b : a;
}

// Whether `body` is defined for `dtype` (and / or need pred or integers).
inline bool fast_body_fits(FastBody body, DType dtype) {
  return !((body == FastBody::kAnd || body == FastBody::kOr) &&
           !(dtype == DType::kPred || is_integer(dtype)));
}

// Throws unless `body` is defined for `dtype`.
inline void check_fast_body(FastBody body, DType dtype, const std::string& op) {
  if (!fast_body_fits(body, dtype)) {
    fail(ErrorKind::kInvalidArgument, op + ": and / or bodies need pred or integer elements, not " +
                                          std::string(dtype_name(dtype)) + ".");
  }
}

// Calls f(combine) with combine(Compute<T> acc, Compute<T> x) -> Compute<T> for the
// element type of D. On pred, add and maximum are OR, multiply and minimum AND. Call
// check_fast_body() first: an and / or body on a float combines nothing.
template <DType D, class F>
void with_combiner(FastBody body, F&& f) {
  using A = Compute<typename ElementType<D>::type>;
  constexpr bool kPred = D == DType::kPred;
  switch (body) {
    case FastBody::kAdd:
      if constexpr (kPred) return f([](A a, A b) { return static_cast<A>(a | b); });
      return f([](A a, A b) { return add_values(a, b); });
    case FastBody::kMultiply:
      if constexpr (kPred) return f([](A a, A b) { return static_cast<A>(a & b); });
      return f([](A a, A b) { return multiply_values(a, b); });
    case FastBody::kMaximum:
      return f([](A a, A b) { return max_values(a, b); });
    case FastBody::kMinimum:
      return f([](A a, A b) { return min_values(a, b); });
    case FastBody::kAnd:
      if constexpr (std::is_integral_v<A>) return f([](A a, A b) { return static_cast<A>(a & b); });
      return;
    case FastBody::kOr:
      if constexpr (std::is_integral_v<A>) return f([](A a, A b) { return static_cast<A>(a | b); });
      return;
    case FastBody::kReplace:
      return f([](A, A b) { return b; });
    case FastBody::kNone:
      return;
  }
}

}  // namespace ndbuf::program
