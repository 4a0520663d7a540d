// Unary kernels over pred and the integer types, and the unary() entry point.
#include <type_traits>

#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"

namespace ndbuf::program {
namespace detail {
namespace {

template <class T>
constexpr bool is_negative(T v) {
  if constexpr (std::is_signed_v<T>) {
    return v < 0;
  } else {
    (void)v;
    return false;
  }
}

template <class T>
Tensor integer_unary(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  const auto same = [&](auto f) { return map_unary<T, T>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kNegate:
      return same([](T v) { return wrap_neg(v); });
    case UnaryOp::kSquare:
      return same([](T v) { return wrap_mul(v, v); });
    // abs(INT_MIN) wraps to INT_MIN, as two's complement negation does.
    case UnaryOp::kAbs:
      return same([](T v) { return is_negative(v) ? wrap_neg(v) : v; });
    case UnaryOp::kSign:
      return same([](T v) { return static_cast<T>(is_negative(v) ? -1 : v != 0); });
    case UnaryOp::kPopcnt:
      return same([](T v) { return popcount(v); });
    case UnaryOp::kCountLeadingZeros:
      return same([](T v) { return count_leading_zeros(v); });
    default:
      break;
  }
  // kNot: the only other op unary_result_dtype() lets through.
  return same([](T v) { return static_cast<T>(~v); });
}

}  // namespace

Tensor unary_integer(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  if (x.dtype() == DType::kPred) {
    // Only `not` reaches here for pred: logical negation keeps the values 0 / 1.
    return map_unary<uint8_t, uint8_t>(x, out, memory, [](uint8_t v) { return uint8_t(v == 0); });
  }
  return dispatch(x.dtype(), [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return integer_unary<T>(op, x, out, memory);
    } else {
      fail_dtype(op_name(op), x.dtype());
    }
  });
}

}  // namespace detail

Tensor unary(UnaryOp op, const Tensor& x, DType result, ResultMemory& memory) {
  const DType expected = unary_result_dtype(op, x.dtype());
  detail::check_result_dtype(op_name(op), expected, result);
  if (is_complex(x.dtype())) return detail::unary_complex(op, x, result, memory);
  if (is_floating(x.dtype())) return detail::unary_float(op, x, result, memory);
  return detail::unary_integer(op, x, result, memory);
}

Tensor unary(UnaryOp op, const Tensor& x, DType result) {
  ResultMemory fresh;
  return unary(op, x, result, fresh);
}

}  // namespace ndbuf::program
