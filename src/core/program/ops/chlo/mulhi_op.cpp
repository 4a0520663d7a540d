// chlo.mulhi: the high half of the double-width product of two integers (elementwise/
// integer_mulhi.hpp). The type rule checks the operands; the builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/integer_mulhi.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void mulhi_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  if (!is_integer(lhs.dtype)) {
    op_error(op, "operands " + type_to_string(lhs) + " must have an integer element type");
  }
  expect_result_type(op, 0, lhs.dtype, lhs.shape);
}

OpFn build_mulhi(const Op&, const Planning&) {
  return tensor_fn([](const Values& a) { return mulhi(a[0].get(), a[1].get()); });
}

}  // namespace ndbuf::program
