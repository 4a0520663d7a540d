// stablehlo.iota: 0, 1, 2, ... along one axis of the result. The type rule checks the result's
// element type and the axis; the builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void iota_types(const Op& op, const Module&) {
  expect_counts(op, 0, 1);
  const Type& result = result_tensor(op, 0);
  // The spec (and XLA's verifier) allow integer, floating-point and complex results only: a
  // count 0, 1, 2, ... has no boolean meaning (bytes 2, 3, ... would not be booleans at all).
  if (result.dtype == DType::kPred) {
    op_error(op, "needs an integer, floating-point or complex result type, not " +
                     type_to_string(result));
  }
  const int64_t dim = attr_int(op, "iota_dimension");
  check_axes(op, "iota_dimension", {dim}, static_cast<int64_t>(result.shape.size()), false);
}

// iota_types has checked the result type and the axis.
OpFn build_iota(const Op& op, const Planning&) {
  const Type result = result_tensor(op, 0);
  const int64_t dim = attr_int(op, "iota_dimension");
  return tensor_fn([result, dim](const Values&) { return iota(result.dtype, result.shape, dim); });
}

}  // namespace ndbuf::program
