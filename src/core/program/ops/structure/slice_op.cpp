// stablehlo.slice: a strided box of the operand, its bounds static. The type rule checks the
// bounds and infers the result shape; the builder binds the kernel (a view).
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void slice_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_same_dtype(op, in, result_tensor(op, 0));
  const size_t rank = in.shape.size();
  const Dims start = attr_ints(op, "start_indices");
  const Dims limit = attr_ints(op, "limit_indices");
  const Dims stride = attr_ints_or(op, "strides", Dims(rank, 1));
  if (start.size() != rank || limit.size() != rank || stride.size() != rank) {
    op_error(op, "needs one start, limit and stride per axis");
  }
  Shape shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    if (start[k] < 0 || start[k] > limit[k] || limit[k] > in.shape[k] || stride[k] < 1) {
      op_error(op, "slice [" + std::to_string(start[k]) + ":" + std::to_string(limit[k]) + ":" +
                       std::to_string(stride[k]) + "] is invalid for axis " + std::to_string(k) +
                       " of size " + std::to_string(in.shape[k]));
    }
    // ceil((limit - start) / stride), written so that a stride near INT64_MAX cannot overflow.
    shape[k] = limit[k] == start[k] ? 0 : (limit[k] - start[k] - 1) / stride[k] + 1;
  }
  expect_result_shape(op, shape);
}

// slice_types has checked the bounds against the operand.
OpFn build_slice(const Op& op, const Planning&) {
  const Dims start = attr_ints(op, "start_indices");
  const Dims limit = attr_ints(op, "limit_indices");
  const Dims stride = attr_ints_or(op, "strides", Dims(start.size(), 1));
  return tensor_fn(
      [start, limit, stride](const Values& a) { return slice(a[0].get(), start, limit, stride); });
}

}  // namespace ndbuf::program
