// Type rules of the element-wise ops: the unary and binary kernels' dtype rules, compare,
// select, clamp, convert, bitcast_convert and reduce_precision (the results keep the operand's
// shape; their element type follows the op).
#include "program/exec/attr_access.hpp"
#include "program/kernels/elementwise.hpp"
#include "program/registry/op_registry.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

void unary_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const UnaryOp kind = *unary_op_named(op.name);
  const Type& in = operand_tensor(op, 0);
  const DType result = at_op(op, [&] { return unary_result_dtype(kind, in.dtype); });
  expect_result_type(op, 0, result, in.shape);
}

void binary_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = *binary_op_named(op.name);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.shape != rhs.shape) op_error(op, "operands must have the same shape");
  const DType result = at_op(op, [&] { return binary_result_dtype(kind, lhs.dtype, rhs.dtype); });
  expect_result_type(op, 0, result, lhs.shape);
}

void compare_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  const std::string dir_name = attr_word(op, "comparison_direction");
  if (!compare_direction_named(dir_name)) {
    op_error(op, "has an unknown comparison direction '" + dir_name + "'");
  }
  const std::string type_name = attr_word(op, "compare_type");
  const auto type = compare_type_for(type_name, lhs.dtype);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, lhs.dtype);
    return 0;
  });
  expect_result_type(op, 0, DType::kPred, lhs.shape);
}

// Operand k is a 0-d tensor or one of `like`'s shape, of element type `dtype`.
void expect_scalar_or(const Op& op, size_t k, const Type& like, DType dtype) {
  const Type& t = operand_tensor(op, k);
  if (t.dtype != dtype || (!t.shape.empty() && t.shape != like.shape)) {
    op_error(op, "operand " + std::to_string(k + 1) + " " + type_to_string(t) +
                     " must be 0-d or of shape " + shape_to_tuple(like.shape));
  }
}

void select_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  const Type& on_true = operand_tensor(op, 1);
  if (operand_tensor(op, 2) != on_true) op_error(op, "both branches must have the same type");
  expect_scalar_or(op, 0, on_true, DType::kPred);
  expect_result_type(op, 0, on_true.dtype, on_true.shape);
}

void clamp_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  const Type& x = operand_tensor(op, 1);
  expect_scalar_or(op, 0, x, x.dtype);
  expect_scalar_or(op, 2, x, x.dtype);
  expect_result_type(op, 0, x.dtype, x.shape);
}

// The result's element type is the program's choice; the shape is the operand's.
void convert_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  expect_result_type(op, 0, result_tensor(op, 0).dtype, x.shape);
}

// The result's element type is free; the shape follows from the two widths.
void bitcast_convert_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  const Type& result = result_tensor(op, 0);
  if (const char* why = bitcast_problem(x.dtype, x.shape, result.dtype, result.shape)) {
    op_error(op,
             "cannot turn " + type_to_string(x) + " into " + type_to_string(result) + ": " + why);
  }
}

void reduce_precision_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  expect_result_type(op, 0, x.dtype, x.shape);
  const int64_t e = attr_int(op, "exponent_bits");
  const int64_t m = attr_int(op, "mantissa_bits");
  if (e < 1 || e > 64 || m < 0 || m > 64) op_error(op, "has an invalid format");
}

}  // namespace

std::vector<TypeRuleEntry> elementwise_type_rules() {
  std::vector<TypeRuleEntry> table = {
      {"stablehlo.compare", compare_types},
      {"stablehlo.select", select_types},
      {"stablehlo.clamp", clamp_types},
      {"stablehlo.convert", convert_types},
      {"stablehlo.bitcast_convert", bitcast_convert_types},
      {"stablehlo.reduce_precision", reduce_precision_types},
  };
  for (const OpRow& row : op_rows()) {
    if (row.kind == OpKind::kUnary) table.push_back({row.name.data(), unary_types});
    if (row.kind == OpKind::kBinary) table.push_back({row.name.data(), binary_types});
  }
  return table;
}

}  // namespace ndbuf::program
