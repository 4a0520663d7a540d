// stablehlo.reverse: the operand with some axes reversed. The type rule checks the axes; the
// builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void reverse_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Dims dims = attr_ints(op, "dimensions");
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  expect_result_type(op, 0, in.dtype, in.shape);
}

// reverse_types has checked the axes.
OpFn build_reverse(const Op& op, const Planning&) {
  const Dims dims = attr_ints(op, "dimensions");
  return tensor_fn([dims](const Values& a) { return reverse(a[0].get(), dims); });
}

}  // namespace ndbuf::program
