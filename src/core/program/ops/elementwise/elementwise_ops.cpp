// Names of the element-wise ops and the dtypes the spec allows each (result dtype rules).
#include <string>
#include <utility>

#include "ndbuf/base/error.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"

namespace ndbuf::program {
namespace {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

constexpr Named<UnaryOp> kUnaryNames[] = {
#define NDBUF_UNARY(name, enumerator) {UnaryOp::enumerator, name},
#include "program/registry/ops.def"
};

constexpr Named<BinaryOp> kBinaryNames[] = {
#define NDBUF_BINARY(name, enumerator) {BinaryOp::enumerator, name},
#include "program/registry/ops.def"
};

constexpr Named<CompareDirection> kDirectionNames[] = {
#define NDBUF_COMPARE_DIRECTION(word, enumerator) {CompareDirection::enumerator, word},
#include "program/registry/ops.def"
};

constexpr Named<CompareType> kCompareTypeNames[] = {
#define NDBUF_COMPARE_TYPE(word, enumerator) {CompareType::enumerator, word},
#include "program/registry/ops.def"
};

template <class E, size_t N>
std::optional<E> value_named(const Named<E> (&table)[N], std::string_view name) {
  for (const Named<E>& row : table) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

// Searched by value, never indexed by it: the tables follow ops.def, not the enum's numbers.
template <class E, size_t N>
std::string_view name_of(const Named<E> (&table)[N], E value) {
  for (const Named<E>& row : table) {
    if (row.value == value) return row.name;
  }
  return "(unknown op)";
}

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
  return value_named(kUnaryNames, name);
}

std::optional<BinaryOp> binary_op_named(std::string_view name) {
  return value_named(kBinaryNames, name);
}

std::string_view op_name(UnaryOp op) { return name_of(kUnaryNames, op); }
std::string_view op_name(BinaryOp op) { return name_of(kBinaryNames, op); }

std::optional<CompareDirection> compare_direction_named(std::string_view name) {
  return value_named(kDirectionNames, name);
}

std::optional<CompareType> compare_type_named(std::string_view name) {
  return value_named(kCompareTypeNames, name);
}

std::string_view compare_type_name(CompareType type) { return name_of(kCompareTypeNames, type); }

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

std::optional<CompareType> compare_type_for(std::string_view word, DType dtype) {
  if (word.empty() || word == "NOTYPE") return default_compare_type(dtype);
  return compare_type_named(word);
}

void check_compare_type(CompareType type, DType dtype) {
  const bool ok = type == default_compare_type(dtype) ||
                  (type == CompareType::kTotalOrder && is_floating(dtype));
  if (!ok) {
    fail(ErrorKind::kInvalidArgument,
         "stablehlo.compare cannot use compare_type " + std::string(compare_type_name(type)) +
             " for operands of type " + std::string(dtype_name(dtype)) + ".");
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
