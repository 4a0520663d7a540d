// Builders of dot_general, dot, gather and scatter over kernels/dot_general.hpp, gather.hpp,
// scatter.hpp: dimension numbers decoded from #stablehlo.dot/gather/scatter<...>.
#include <vector>

#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/element_compile.hpp"
#include "program/exec/index_dims.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/kernels/dot_general.hpp"
#include "program/kernels/element_region.hpp"
#include "program/kernels/gather.hpp"
#include "program/kernels/scatter.hpp"

namespace ndbuf::program {
namespace {

// The spec's dtype rule (C13: one element type on both sides; the result's is free, the kernel
// converts), then the result type inferred from the shapes.
OpFn build_dot_common(const Op& op, const DotDimensions& dims) {
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.dtype != rhs.dtype) {
    op_error(op, "operands must have one element type, not " + type_to_string(lhs) + " and " +
                     type_to_string(rhs));
  }
  const DType result = result_tensor(op, 0).dtype;
  expect_result_type(op, 0, result,
                     at_op(op, [&] { return dot_general_shape(lhs.shape, rhs.shape, dims); }));
  return tensor_fn([dims, result](const Values& a) {
    return dot_general(a[0].get(), a[1].get(), dims, result);
  });
}

}  // namespace

OpFn build_dot_general(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const DotDimensions dims = dot_general_dimensions(op);
  return build_dot_common(op, dims);
}

OpFn build_dot(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const DotDimensions dims = at_op(
      op, [&] { return dot_dimensions(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape); });
  return build_dot_common(op, dims);
}

OpFn build_gather(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const GatherDimensions dims = gather_dimensions(op);
  const std::vector<int64_t> sizes = attr_ints(op, "slice_sizes");
  const Shape shape = at_op(op, [&] {
    return gather_shape(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape, dims, sizes);
  });
  expect_result_type(op, 0, operand_tensor(op, 0).dtype, shape);
  return tensor_fn(
      [dims, sizes](const Values& a) { return gather(a[0].get(), a[1].get(), dims, sizes); });
}

OpFn build_scatter(const Op& op, const Planning& planning) {
  const size_t n = (op.operands.size() - 1) / 2;
  if (n == 0 || op.operands.size() != 2 * n + 1 || op.result_types.size() != n ||
      op.regions.size() != 1) {
    op_error(op, "needs N inputs, indices, N updates, N results and one region");
  }
  const ScatterDimensions dims = scatter_dimensions(op);
  std::vector<DType> inputs, args;
  for (size_t k = 0; k < n; ++k) {
    if (result_tensor(op, k) != operand_tensor(op, k))
      op_error(op, "results must have the input types");
    inputs.push_back(operand_tensor(op, k).dtype);
  }
  // The kernel calls the body with (current values..., updates...) and stores what it returns.
  args = inputs;
  for (size_t k = 0; k < n; ++k) args.push_back(operand_tensor(op, n + 1 + k).dtype);
  expect_region_args(op, op.regions[0], scalar_types(args));
  expect_region_returns(op, op.regions[0], scalar_types(inputs));
  const Region* body = &op.regions[0];
  const FastBody fast = n == 1 ? recognise_body(*body) : FastBody::kNone;
  auto program = fast == FastBody::kNone ? compile_element_program(*body) : std::nullopt;
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, dims, plan, fast, program](Interpreter& in, const Values& a) {
    std::vector<Tensor> inputs, updates;
    for (size_t k = 0; k < n; ++k) inputs.push_back(a[k].get());
    for (size_t k = 0; k < n; ++k) updates.push_back(a[n + 1 + k].get());
    const RegionFn update = program ? element_region_fn(*program) : in.region_fn(*plan);
    const std::vector<Tensor> out = scatter(inputs, a[n].get(), updates, dims, update, fast);
    return Values(out.begin(), out.end());
  };
}

}  // namespace ndbuf::program
