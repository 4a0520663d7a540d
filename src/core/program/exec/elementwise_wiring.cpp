// Builders of the element-wise ops over the kernels of kernels/elementwise.hpp: the result
// dtype rules and shape checks run at compile time.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/kernels/elementwise.hpp"

namespace ndbuf::program {
namespace {

void expect_result(const Op& op, DType dtype, const Shape& shape) {
  expect_result_type(op, 0, dtype, shape);
}

}  // namespace

OpFn build_unary(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const UnaryOp kind = *unary_op_named(op.name);
  const Type& in = operand_tensor(op, 0);
  const DType result = at_op(op, [&] { return unary_result_dtype(kind, in.dtype); });
  expect_result(op, result, in.shape);
  return tensor_fn([kind, result](const Values& a) { return unary(kind, a[0].get(), result); });
}

OpFn build_binary(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = *binary_op_named(op.name);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.shape != rhs.shape) op_error(op, "operands must have the same shape");
  const DType result = at_op(op, [&] { return binary_result_dtype(kind, lhs.dtype, rhs.dtype); });
  expect_result(op, result, lhs.shape);
  return tensor_fn(
      [kind, result](const Values& a) { return binary(kind, a[0].get(), a[1].get(), result); });
}

OpFn build_compare(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  const std::string dir_name = attr_word(op, "comparison_direction");
  const auto direction = compare_direction_named(dir_name);
  if (!direction) op_error(op, "has an unknown comparison direction '" + dir_name + "'");
  const std::string type_name = attr_word(op, "compare_type");
  const auto type = compare_type_for(type_name, lhs.dtype);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, lhs.dtype);
    return 0;
  });
  expect_result(op, DType::kPred, lhs.shape);
  const CompareDirection d = *direction;
  const CompareType t = *type;
  return tensor_fn([d, t](const Values& a) { return compare(d, t, a[0].get(), a[1].get()); });
}

namespace {

void expect_scalar_or(const Op& op, size_t k, const Type& like, DType dtype) {
  const Type& t = operand_tensor(op, k);
  if (t.dtype != dtype || (!t.shape.empty() && t.shape != like.shape)) {
    op_error(op, "operand " + std::to_string(k + 1) + " " + type_to_string(t) +
                     " must be 0-d or of shape " + shape_to_tuple(like.shape));
  }
}

}  // namespace

OpFn build_select(const Op& op, const Planning&) {
  expect_counts(op, 3, 1);
  const Type& on_true = operand_tensor(op, 1);
  if (operand_tensor(op, 2) != on_true) op_error(op, "both branches must have the same type");
  expect_scalar_or(op, 0, on_true, DType::kPred);
  expect_result(op, on_true.dtype, on_true.shape);
  return tensor_fn([](const Values& a) { return select(a[0].get(), a[1].get(), a[2].get()); });
}

OpFn build_clamp(const Op& op, const Planning&) {
  expect_counts(op, 3, 1);
  const Type& x = operand_tensor(op, 1);
  expect_scalar_or(op, 0, x, x.dtype);
  expect_scalar_or(op, 2, x, x.dtype);
  expect_result(op, x.dtype, x.shape);
  return tensor_fn([](const Values& a) { return clamp(a[0].get(), a[1].get(), a[2].get()); });
}

OpFn build_convert(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  const DType to = result_tensor(op, 0).dtype;
  expect_result(op, to, x.shape);
  return tensor_fn([to](const Values& a) { return convert(a[0].get(), to); });
}

OpFn build_bitcast_convert(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  const Type result = result_tensor(op, 0);
  const char* why = bitcast_problem(x.dtype, x.shape, result.dtype, result.shape);
  if (why != nullptr) {
    op_error(op,
             "cannot turn " + type_to_string(x) + " into " + type_to_string(result) + ": " + why);
  }
  return tensor_fn([result](const Values& a) {
    return bitcast_convert(a[0].get(), result.dtype, result.shape);
  });
}

OpFn build_reduce_precision(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  expect_result(op, x.dtype, x.shape);
  const int64_t e = attr_int(op, "exponent_bits");
  const int64_t m = attr_int(op, "mantissa_bits");
  if (e < 1 || e > 64 || m < 0 || m > 64) op_error(op, "has an invalid format");
  return tensor_fn([e, m](const Values& a) {
    return reduce_precision(a[0].get(), static_cast<int>(e), static_cast<int>(m));
  });
}

}  // namespace ndbuf::program
