// stablehlo.concatenate: the operands joined along one axis. The type rule checks that they
// agree elsewhere and infers the result shape (sizes overflow-checked); the builder binds the
// kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void concatenate_types(const Op& op, const Module&) {
  if (op.operands.empty() || op.result_types.size() != 1) {
    op_error(op, "needs operands and one result");
  }
  const Type& first = operand_tensor(op, 0);
  const int64_t dim = attr_int(op, "dimension");
  check_axes(op, "dimension", {dim}, static_cast<int64_t>(first.shape.size()), false);
  Shape shape = first.shape;
  shape[dim] = 0;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    Shape other = t.shape;
    if (other.size() != shape.size()) op_error(op, "operands must have the same rank");
    expect_same_dtype(op, first, t);
    if (!checked_add(shape[dim], other[dim], &shape[dim])) {
      op_error(op, "the operands' sizes along dimension " + std::to_string(dim) +
                       " add up to more than a 64-bit integer can hold");
    }
    other[dim] = shape[dim];
    if (other != shape) {
      op_error(op, "operands differ in a dimension other than " + std::to_string(dim));
    }
  }
  expect_result_type(op, 0, first.dtype, shape);
}

// concatenate_types has checked the axis and the operands.
OpFn build_concatenate(const Op& op, const Planning&) {
  const int64_t dim = attr_int(op, "dimension");
  return tensor_fn([dim](const Values& a) { return concatenate(tensors_of(a), dim); });
}

}  // namespace ndbuf::program
