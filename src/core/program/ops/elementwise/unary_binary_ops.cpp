// The element-wise ops over one kernel of ops/elementwise/elementwise.hpp (NDBUF_UNARY /
// NDBUF_BINARY rows): the type rules apply the kernels' dtype rules to the operands, the builders
// bind the kernel the row names.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/registry/op_registry.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void unary_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const UnaryOp kind = op_row(op.id).unary;
  const Type& in = operand_tensor(op, 0);
  const DType result = at_op(op, [&] { return unary_result_dtype(kind, in.dtype); });
  expect_result_type(op, 0, result, in.shape);
}

// unary_types has checked the operand and the result type.
OpFn build_unary(const Op& op, const Planning&) {
  const UnaryOp kind = op_row(op.id).unary;
  const DType result = result_tensor(op, 0).dtype;
  return offered_memory_fn([kind, result](const Values& a, ResultMemory& memory) {
    return unary(kind, a[0].get(), result, memory);
  });
}

void binary_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = op_row(op.id).binary;
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.shape != rhs.shape) op_error(op, "operands must have the same shape");
  const DType result = at_op(op, [&] { return binary_result_dtype(kind, lhs.dtype, rhs.dtype); });
  expect_result_type(op, 0, result, lhs.shape);
}

// binary_types has checked the operands and the result type.
OpFn build_binary(const Op& op, const Planning&) {
  const BinaryOp kind = op_row(op.id).binary;
  const DType result = result_tensor(op, 0).dtype;
  return offered_memory_fn([kind, result](const Values& a, ResultMemory& memory) {
    return binary(kind, a[0].get(), a[1].get(), result, memory);
  });
}

}  // namespace ndbuf::program
