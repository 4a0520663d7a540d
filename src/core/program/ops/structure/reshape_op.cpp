// stablehlo.reshape: the operand's elements in row-major order, as the result's shape. The
// type rule checks that the sizes agree; the builder binds the kernel (a view when it can).
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void reshape_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& result = result_tensor(op, 0);
  expect_same_dtype(op, in, result);
  if (checked_numel(in.shape) != checked_numel(result.shape)) {
    op_error(op, "cannot reshape " + type_to_string(in) + " to " + type_to_string(result) +
                     ": the sizes differ");
  }
}

OpFn build_reshape(const Op& op, const Planning&) {
  const Shape shape = result_tensor(op, 0).shape;
  return tensor_fn([shape](const Values& a) { return reshape(a[0].get(), shape); });
}

}  // namespace ndbuf::program
