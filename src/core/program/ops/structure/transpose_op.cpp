// stablehlo.transpose: the operand's axes permuted. The type rule checks the permutation and
// infers the result shape; the builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void transpose_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_same_dtype(op, in, result_tensor(op, 0));
  const Dims perm = attr_ints(op, "permutation");
  if (perm.size() != in.shape.size()) op_error(op, "permutation must have one entry per axis");
  check_axes(op, "permutation entry", perm, static_cast<int64_t>(perm.size()), true);
  Shape shape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) shape[k] = in.shape[perm[k]];
  expect_result_shape(op, shape);
}

// transpose_types has checked that the permutation is one.
OpFn build_transpose(const Op& op, const Planning&) {
  const Dims perm = attr_ints(op, "permutation");
  return tensor_fn([perm](const Values& a) { return transpose(a[0].get(), perm); });
}

}  // namespace ndbuf::program
