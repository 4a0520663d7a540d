// convert between any two of the dtypes, with XLA's choices where the spec leaves the
// result open:
// - float -> integer truncates toward zero and saturates: NaN -> 0, values below the range
//   (-Inf included) -> the minimum (0 for unsigned), above it (+Inf included) -> the maximum;
// - integer -> integer keeps the low bits (two's complement wrap);
// - integer or float -> a narrower float rounds to nearest, ties to even, once (64-bit
//   integers reach f16 / bf16 / f8 through a round-to-odd double, so there is no double
//   rounding); the program-only small floats go through double the same way;
// - anything -> pred is `!= 0` (NaN is true); complex -> pred and complex -> real use the real
//   part only (the imaginary part is dropped, per spec); real -> complex has imaginary part 0.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/element_cast.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"

namespace ndbuf::program {
namespace {

// A magnitude as double, rounded to odd: exact below 2^53, else the 53 leading bits with the
// last one set when any dropped bit was, so that one later rounding to <= 51 bits is correct.
double magnitude_to_double_odd(uint64_t m) {
  if (m < (uint64_t{1} << 53)) return static_cast<double>(m);
  const int shift = 64 - __builtin_clzll(m) - 53;
  uint64_t kept = m >> shift;
  if ((m & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  return std::ldexp(static_cast<double>(kept), shift);
}

template <class I>
double integer_to_double_odd(I v) {
  if constexpr (std::is_signed_v<I>) {
    const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : uint64_t(v);
    const double d = magnitude_to_double_odd(magnitude);
    return v < 0 ? -d : d;
  } else {
    return magnitude_to_double_odd(v);
  }
}

// A real (non-complex) value of dtype tag `From` as the real element type `To`.
template <DType To, DType From>
auto real_to_real(typename ElementType<From>::type v) {
  using T = typename ElementType<To>::type;
  using F = typename ElementType<From>::type;
  if constexpr (To == DType::kPred) {
    if constexpr (kIsNarrowFloat<F>) {
      return uint8_t(to_double(v) != 0);
    } else {
      return uint8_t(v != 0);
    }
  } else if constexpr (From == DType::kPred) {
    return detail::store<T>(static_cast<detail::Compute<T>>(v != 0 ? 1 : 0));
  } else if constexpr (std::is_integral_v<T> && std::is_integral_v<F>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));  // keeps the low bits
  } else if constexpr (std::is_integral_v<T>) {
    return saturate_to_integer<T>(to_double_value(v));
  } else if constexpr (std::is_integral_v<F>) {
    if constexpr (kIsNarrowFloat<T>)
      return narrow_float_from_double<T>(integer_to_double_odd(v));
    else
      return static_cast<T>(v);  // one correctly rounded conversion
  } else {
    const double d = to_double_value(v);  // exact widening
    if constexpr (kIsNarrowFloat<T>)
      return narrow_float_from_double<T>(d);
    else
      return static_cast<T>(d);
  }
}

template <DType D>
constexpr bool kComplexDType = D == DType::kC64 || D == DType::kC128;
template <DType D>
constexpr DType kPartDType = D == DType::kC64 ? DType::kF32 : DType::kF64;

template <DType To, DType From>
auto convert_value(typename ElementType<From>::type v) {
  using T = typename ElementType<To>::type;
  if constexpr (kComplexDType<To> && kComplexDType<From>) {
    using R = typename T::value_type;
    return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else if constexpr (kComplexDType<To>) {
    return T(real_to_real<kPartDType<To>, From>(v), 0);
  } else if constexpr (kComplexDType<From>) {
    return real_to_real<To, kPartDType<From>>(v.real());
  } else {
    return real_to_real<To, From>(v);
  }
}

// An element of a buffer dtype as double for a program-only small float: exact for floats,
// rounded to odd for integers (one later rounding to a few bits is then correct), the real
// part of complex numbers.
template <class F>
double to_double_for_minifloat(F v) {
  if constexpr (kIsComplex<F>) {
    return static_cast<double>(v.real());
  } else if constexpr (std::is_integral_v<F>) {
    return integer_to_double_odd(v);
  } else {
    return to_double_value(v);
  }
}

// convert where either side is a program-only small float: through double, serially (these
// types only live in program constants).
Tensor convert_through_double(const Tensor& x, DType to, ResultMemory& memory) {
  const Tensor in = make_dense(x, Order::kRowMajor);
  Tensor out = memory.take(to, x.shape());
  const int64_t n = x.numel();
  std::vector<double> values(static_cast<size_t>(n));
  if (is_program_only(x.dtype())) {
    const auto* bits = static_cast<const uint8_t*>(in.data());
    const MinifloatFormat& format = minifloat_format_of(x.dtype());
    for (int64_t i = 0; i < n; ++i) values[i] = minifloat_to_double(bits[i], format);
  } else {
    dispatch(x.dtype(), [&](auto tag) {
      using F = typename decltype(tag)::type;
      const F* from = static_cast<const F*>(in.data());
      for (int64_t i = 0; i < n; ++i) values[i] = to_double_for_minifloat(from[i]);
    });
  }
  if (is_program_only(to)) {
    auto* bits = static_cast<uint8_t*>(out.data());
    const MinifloatFormat& format = minifloat_format_of(to);
    for (int64_t i = 0; i < n; ++i) bits[i] = minifloat_from_double(values[i], format);
    return out;
  }
  dispatch(to, [&](auto tag) {
    constexpr DType kTo = decltype(tag)::value;
    using T = typename decltype(tag)::type;
    T* result = static_cast<T*>(out.data());
    for (int64_t i = 0; i < n; ++i) result[i] = T(convert_value<kTo, DType::kF64>(values[i]));
  });
  return out;
}

}  // namespace

Tensor convert(const Tensor& x, DType to, ResultMemory& memory) {
  if (is_program_only(to) || is_program_only(x.dtype())) {
    return convert_through_double(x, to, memory);
  }
  return dispatch(to, [&](auto to_tag) {
    return dispatch(x.dtype(), [&](auto from_tag) {
      constexpr DType kTo = decltype(to_tag)::value;
      constexpr DType kFrom = decltype(from_tag)::value;
      using T = typename decltype(to_tag)::type;
      using F = typename decltype(from_tag)::type;
      Tensor out = memory.take(to, x.shape());
      const detail::Operand<F> in = detail::read_operand<F>(x, x.shape());
      detail::map_into<T>(
          out, [](F v) { return T(convert_value<kTo, kFrom>(v)); }, false, in);
      return out;
    });
  });
}

Tensor convert(const Tensor& x, DType to) {
  ResultMemory fresh;
  return convert(x, to, fresh);
}

}  // namespace ndbuf::program
