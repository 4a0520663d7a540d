// stablehlo.broadcast_in_dim: the operand's axes placed on result axes, size-1 axes repeated.
// The type rule checks the placement against the declared result; the builder binds the
// kernel (a view through zero strides).
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// The result's shape is declared; each operand axis must be 1 or the size it maps to.
void broadcast_in_dim_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& result = result_tensor(op, 0);
  expect_same_dtype(op, in, result);
  const Dims dims = attr_ints(op, "broadcast_dimensions");
  if (dims.size() != in.shape.size()) {
    op_error(op, "needs one broadcast dimension per operand axis");
  }
  check_axes(op, "broadcast dimension", dims, static_cast<int64_t>(result.shape.size()), true);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (in.shape[k] != 1 && in.shape[k] != result.shape[dims[k]]) {
      op_error(op, "operand axis " + std::to_string(k) + " of size " + std::to_string(in.shape[k]) +
                       " cannot broadcast to size " + std::to_string(result.shape[dims[k]]));
    }
  }
}

// broadcast_in_dim_types has checked the dimensions against both shapes.
OpFn build_broadcast_in_dim(const Op& op, const Planning&) {
  const Shape shape = result_tensor(op, 0).shape;
  const Dims dims = attr_ints(op, "broadcast_dimensions");
  return tensor_fn(
      [shape, dims](const Values& a) { return broadcast_in_dim(a[0].get(), shape, dims); });
}

}  // namespace ndbuf::program
