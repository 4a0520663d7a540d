// Names of the element-wise ops and the dtypes the spec allows each (result dtype rules).
#include <array>
#include <string>
#include <utility>

#include "ndbuf/base/error.hpp"
#include "program/kernels/elementwise.hpp"
#include "program/kernels/elementwise_loop.hpp"

namespace ndbuf::program {
namespace {

constexpr std::array<std::pair<UnaryOp, std::string_view>, 44> kUnaryNames = {{
    {UnaryOp::kNegate, "stablehlo.negate"},
    {UnaryOp::kAbs, "stablehlo.abs"},
    {UnaryOp::kSign, "stablehlo.sign"},
    {UnaryOp::kNot, "stablehlo.not"},
    {UnaryOp::kPopcnt, "stablehlo.popcnt"},
    {UnaryOp::kCountLeadingZeros, "stablehlo.count_leading_zeros"},
    {UnaryOp::kExponential, "stablehlo.exponential"},
    {UnaryOp::kExponentialMinusOne, "stablehlo.exponential_minus_one"},
    {UnaryOp::kLog, "stablehlo.log"},
    {UnaryOp::kLogPlusOne, "stablehlo.log_plus_one"},
    {UnaryOp::kLogistic, "stablehlo.logistic"},
    {UnaryOp::kSqrt, "stablehlo.sqrt"},
    {UnaryOp::kRsqrt, "stablehlo.rsqrt"},
    {UnaryOp::kCbrt, "stablehlo.cbrt"},
    {UnaryOp::kSquare, "chlo.square"},
    {UnaryOp::kSine, "stablehlo.sine"},
    {UnaryOp::kCosine, "stablehlo.cosine"},
    {UnaryOp::kTan, "stablehlo.tan"},
    {UnaryOp::kTanh, "stablehlo.tanh"},
    {UnaryOp::kSinh, "chlo.sinh"},
    {UnaryOp::kCosh, "chlo.cosh"},
    {UnaryOp::kAsin, "chlo.asin"},
    {UnaryOp::kAcos, "chlo.acos"},
    {UnaryOp::kAtan, "chlo.atan"},
    {UnaryOp::kAsinh, "chlo.asinh"},
    {UnaryOp::kAcosh, "chlo.acosh"},
    {UnaryOp::kAtanh, "chlo.atanh"},
    {UnaryOp::kFloor, "stablehlo.floor"},
    {UnaryOp::kCeil, "stablehlo.ceil"},
    {UnaryOp::kRoundNearestEven, "stablehlo.round_nearest_even"},
    {UnaryOp::kRoundNearestAfz, "stablehlo.round_nearest_afz"},
    {UnaryOp::kIsFinite, "stablehlo.is_finite"},
    {UnaryOp::kIsInf, "chlo.is_inf"},
    {UnaryOp::kIsPosInf, "chlo.is_pos_inf"},
    {UnaryOp::kIsNegInf, "chlo.is_neg_inf"},
    {UnaryOp::kReal, "stablehlo.real"},
    {UnaryOp::kImag, "stablehlo.imag"},
    {UnaryOp::kErf, "chlo.erf"},
    {UnaryOp::kErfc, "chlo.erfc"},
    {UnaryOp::kErfInv, "chlo.erf_inv"},
    {UnaryOp::kLgamma, "chlo.lgamma"},
    {UnaryOp::kDigamma, "chlo.digamma"},
    {UnaryOp::kBesselI1e, "chlo.bessel_i1e"},
    {UnaryOp::kConj, "chlo.conj"},
}};

constexpr std::array<std::pair<BinaryOp, std::string_view>, 19> kBinaryNames = {{
    {BinaryOp::kAdd, "stablehlo.add"},
    {BinaryOp::kSubtract, "stablehlo.subtract"},
    {BinaryOp::kMultiply, "stablehlo.multiply"},
    {BinaryOp::kDivide, "stablehlo.divide"},
    {BinaryOp::kRemainder, "stablehlo.remainder"},
    {BinaryOp::kPower, "stablehlo.power"},
    {BinaryOp::kMaximum, "stablehlo.maximum"},
    {BinaryOp::kMinimum, "stablehlo.minimum"},
    {BinaryOp::kAtan2, "stablehlo.atan2"},
    {BinaryOp::kAnd, "stablehlo.and"},
    {BinaryOp::kOr, "stablehlo.or"},
    {BinaryOp::kXor, "stablehlo.xor"},
    {BinaryOp::kShiftLeft, "stablehlo.shift_left"},
    {BinaryOp::kShiftRightArithmetic, "stablehlo.shift_right_arithmetic"},
    {BinaryOp::kShiftRightLogical, "stablehlo.shift_right_logical"},
    {BinaryOp::kComplex, "stablehlo.complex"},
    {BinaryOp::kPolygamma, "chlo.polygamma"},
    {BinaryOp::kZeta, "chlo.zeta"},
    {BinaryOp::kNextAfter, "chlo.next_after"},
}};

constexpr std::array<std::string_view, 6> kDirectionNames = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::array<std::string_view, 4> kCompareTypeNames = {"FLOAT", "TOTALORDER", "SIGNED",
                                                               "UNSIGNED"};

bool is_signed_int(DType d) { return dtype_info(d).cls == DTypeClass::kSigned; }
bool is_pred(DType d) { return d == DType::kPred; }
bool is_float_or_complex(DType d) { return is_floating(d) || is_complex(d); }
bool is_numeric(DType d) { return !is_pred(d); }

// The real type of a complex type's parts (c64 -> f32); other types are their own.
DType part_dtype(DType d) {
  if (d == DType::kC64) return DType::kF32;
  if (d == DType::kC128) return DType::kF64;
  return d;
}

bool unary_allows(UnaryOp op, DType d) {
  switch (op) {
    case UnaryOp::kNegate:
    case UnaryOp::kSquare:
      return is_numeric(d);
    case UnaryOp::kAbs:
    case UnaryOp::kSign:
      return is_signed_int(d) || is_float_or_complex(d);
    case UnaryOp::kNot:
      return is_pred(d) || is_integer(d);
    case UnaryOp::kPopcnt:
    case UnaryOp::kCountLeadingZeros:
      return is_integer(d);
    case UnaryOp::kFloor:
    case UnaryOp::kCeil:
    case UnaryOp::kRoundNearestEven:
    case UnaryOp::kRoundNearestAfz:
    case UnaryOp::kIsFinite:
    case UnaryOp::kIsInf:
    case UnaryOp::kIsPosInf:
    case UnaryOp::kIsNegInf:
    case UnaryOp::kErf:
    case UnaryOp::kErfc:
    case UnaryOp::kErfInv:
    case UnaryOp::kLgamma:
    case UnaryOp::kDigamma:
    case UnaryOp::kBesselI1e:
      return is_floating(d);
    default:
      return is_float_or_complex(d);  // the analytic functions, real, imag
  }
}

}  // namespace

std::optional<UnaryOp> unary_op_named(std::string_view name) {
  if (name == "chlo.tan") return UnaryOp::kTan;
  for (const auto& [op, op_name] : kUnaryNames) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

std::optional<BinaryOp> binary_op_named(std::string_view name) {
  for (const auto& [op, op_name] : kBinaryNames) {
    if (op_name == name) return op;
  }
  return std::nullopt;
}

std::string_view op_name(UnaryOp op) { return kUnaryNames[static_cast<size_t>(op)].second; }
std::string_view op_name(BinaryOp op) { return kBinaryNames[static_cast<size_t>(op)].second; }

std::optional<CompareDirection> compare_direction_named(std::string_view name) {
  for (size_t i = 0; i < kDirectionNames.size(); ++i) {
    if (kDirectionNames[i] == name) return static_cast<CompareDirection>(i);
  }
  return std::nullopt;
}

std::optional<CompareType> compare_type_named(std::string_view name) {
  for (size_t i = 0; i < kCompareTypeNames.size(); ++i) {
    if (kCompareTypeNames[i] == name) return static_cast<CompareType>(i);
  }
  return std::nullopt;
}

DType unary_result_dtype(UnaryOp op, DType operand) {
  if (!unary_allows(op, operand)) detail::fail_dtype(op_name(op), operand);
  switch (op) {
    case UnaryOp::kAbs:
    case UnaryOp::kReal:
    case UnaryOp::kImag:
      return part_dtype(operand);
    case UnaryOp::kIsFinite:
    case UnaryOp::kIsInf:
    case UnaryOp::kIsPosInf:
    case UnaryOp::kIsNegInf:
      return DType::kPred;
    default:
      return operand;
  }
}

DType binary_result_dtype(BinaryOp op, DType lhs, DType rhs) {
  const std::string_view name = op_name(op);
  if (lhs != rhs) {
    fail(ErrorKind::kInvalidArgument,
         std::string(name) + " needs operands of one element type, not " +
             std::string(dtype_name(lhs)) + " and " + std::string(dtype_name(rhs)) + ".");
  }
  bool allowed = false;
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMultiply:
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum:
      allowed = true;
      break;
    case BinaryOp::kSubtract:
    case BinaryOp::kDivide:
    case BinaryOp::kPower:
      allowed = is_numeric(lhs);
      break;
    // Complex remainder is left undefined by the spec ("TBD").
    case BinaryOp::kRemainder:
      allowed = is_integer(lhs) || is_floating(lhs);
      break;
    case BinaryOp::kAtan2:
      allowed = is_float_or_complex(lhs);
      break;
    case BinaryOp::kPolygamma:
    case BinaryOp::kZeta:
    case BinaryOp::kNextAfter:
      allowed = is_floating(lhs);
      break;
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
    case BinaryOp::kXor:
      allowed = is_pred(lhs) || is_integer(lhs);
      break;
    case BinaryOp::kShiftLeft:
    case BinaryOp::kShiftRightArithmetic:
    case BinaryOp::kShiftRightLogical:
      allowed = is_integer(lhs);
      break;
    case BinaryOp::kComplex:
      allowed = lhs == DType::kF32 || lhs == DType::kF64;
      break;
  }
  if (!allowed) detail::fail_dtype(name, lhs);
  if (op == BinaryOp::kComplex) return lhs == DType::kF32 ? DType::kC64 : DType::kC128;
  return lhs;
}

CompareType default_compare_type(DType dtype) {
  if (is_signed_int(dtype)) return CompareType::kSigned;
  if (is_integer(dtype) || is_pred(dtype)) return CompareType::kUnsigned;
  return CompareType::kFloat;
}

void check_compare_type(CompareType type, DType dtype) {
  const bool ok = type == default_compare_type(dtype) ||
                  (type == CompareType::kTotalOrder && is_floating(dtype));
  if (!ok) {
    fail(ErrorKind::kInvalidArgument,
         "stablehlo.compare cannot use compare_type " +
             std::string(kCompareTypeNames[static_cast<size_t>(type)]) + " for operands of type " +
             std::string(dtype_name(dtype)) + ".");
  }
}

namespace detail {

void fail_dtype(std::string_view op, DType dtype) {
  fail(ErrorKind::kInvalidArgument, std::string(op) + " does not accept operands of type " +
                                        std::string(dtype_name(dtype)) + ".");
}

void check_same_shape(std::string_view op, const Tensor& lhs, const Tensor& rhs) {
  if (lhs.shape() != rhs.shape()) {
    fail(ErrorKind::kInvalidArgument, std::string(op) + " needs operands of one shape, not " +
                                          shape_to_tuple(lhs.shape()) + " and " +
                                          shape_to_tuple(rhs.shape()) + ".");
  }
}

void check_same_dtype(std::string_view op, const Tensor& lhs, const Tensor& rhs) {
  if (lhs.dtype() != rhs.dtype()) {
    fail(ErrorKind::kInvalidArgument, std::string(op) +
                                          " needs operands of one element type, not " +
                                          std::string(dtype_name(lhs.dtype())) + " and " +
                                          std::string(dtype_name(rhs.dtype())) + ".");
  }
}

void check_result_dtype(std::string_view op, DType expected, DType given) {
  if (expected != given) {
    fail(ErrorKind::kInvalidArgument, std::string(op) + " produces " +
                                          std::string(dtype_name(expected)) + ", not " +
                                          std::string(dtype_name(given)) + ".");
  }
}

}  // namespace detail
}  // namespace ndbuf::program
