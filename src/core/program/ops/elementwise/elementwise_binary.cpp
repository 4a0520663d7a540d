// Binary kernels over pred and the integer types, and the binary() entry point. Integer
// arithmetic wraps; division, remainder, power and shifts follow XLA (elementwise_scalar.hpp).
#include <type_traits>

#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"

namespace ndbuf::program {
namespace detail {
namespace {

// pred: add is `or`, multiply is `and`, maximum is `or`, minimum is `and` (spec).
Tensor pred_binary(BinaryOp op, const Tensor& a, const Tensor& b, ResultMemory& memory) {
  const auto logic = [&](auto f) {
    return map_binary<uint8_t, uint8_t>(a, b, DType::kPred, memory, f);
  };
  switch (op) {
    case BinaryOp::kAnd:
    case BinaryOp::kMultiply:
    case BinaryOp::kMinimum:
      return logic([](uint8_t u, uint8_t v) { return uint8_t(u & v); });
    case BinaryOp::kXor:
      return logic([](uint8_t u, uint8_t v) { return uint8_t(u ^ v); });
    default:
      break;
  }
  return logic([](uint8_t u, uint8_t v) { return uint8_t(u | v); });  // or, add, maximum
}

template <class T>
Tensor integer_binary(BinaryOp op, const Tensor& a, const Tensor& b, ResultMemory& memory) {
  const auto same = [&](auto f) { return map_binary<T, T>(a, b, a.dtype(), memory, f); };
  switch (op) {
    case BinaryOp::kAdd:
      return same([](T u, T v) { return wrap_add(u, v); });
    case BinaryOp::kSubtract:
      return same([](T u, T v) { return wrap_sub(u, v); });
    case BinaryOp::kMultiply:
      return same([](T u, T v) { return wrap_mul(u, v); });
    case BinaryOp::kDivide:
      return same([](T u, T v) { return int_divide(u, v); });
    case BinaryOp::kRemainder:
      return same([](T u, T v) { return int_remainder(u, v); });
    case BinaryOp::kPower:
      return same([](T u, T v) { return int_power(u, v); });
    case BinaryOp::kMaximum:
      return same([](T u, T v) { return u < v ? v : u; });
    case BinaryOp::kMinimum:
      return same([](T u, T v) { return v < u ? v : u; });
    case BinaryOp::kAnd:
      return same([](T u, T v) { return static_cast<T>(u & v); });
    case BinaryOp::kOr:
      return same([](T u, T v) { return static_cast<T>(u | v); });
    case BinaryOp::kXor:
      return same([](T u, T v) { return static_cast<T>(u ^ v); });
    case BinaryOp::kShiftLeft:
      return same([](T u, T v) { return shift_left(u, v); });
    case BinaryOp::kShiftRightArithmetic:
      return same([](T u, T v) { return shift_right_arithmetic(u, v); });
    case BinaryOp::kShiftRightLogical:
      return same([](T u, T v) { return shift_right_logical(u, v); });
    default:
      break;
  }
  fail_dtype(op_name(op), a.dtype());  // atan2, complex: excluded by binary_result_dtype()
}

}  // namespace

Tensor binary_integer(BinaryOp op, const Tensor& a, const Tensor& b, ResultMemory& memory) {
  if (a.dtype() == DType::kPred) return pred_binary(op, a, b, memory);
  return dispatch(a.dtype(), [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return integer_binary<T>(op, a, b, memory);
    } else {
      fail_dtype(op_name(op), a.dtype());
    }
  });
}

}  // namespace detail

Tensor binary(BinaryOp op, const Tensor& lhs, const Tensor& rhs, DType result,
              ResultMemory& memory) {
  const DType expected = binary_result_dtype(op, lhs.dtype(), rhs.dtype());
  detail::check_same_shape(op_name(op), lhs, rhs);
  detail::check_result_dtype(op_name(op), expected, result);
  if (is_complex(lhs.dtype())) return detail::binary_complex(op, lhs, rhs, memory);
  if (is_floating(lhs.dtype())) return detail::binary_float(op, lhs, rhs, result, memory);
  return detail::binary_integer(op, lhs, rhs, memory);
}

Tensor binary(BinaryOp op, const Tensor& lhs, const Tensor& rhs, DType result) {
  ResultMemory fresh;
  return binary(op, lhs, rhs, result, fresh);
}

}  // namespace ndbuf::program
