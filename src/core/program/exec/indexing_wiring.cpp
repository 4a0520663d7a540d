// Builders of dot_general, dot, gather and scatter over kernels/dot_general.hpp, gather.hpp,
// scatter.hpp: dimension numbers decoded from #stablehlo.dot/gather/scatter<...>.
#include <initializer_list>
#include <utility>
#include <vector>

#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/element_compile.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/kernels/dot_general.hpp"
#include "program/kernels/element_region.hpp"
#include "program/kernels/gather.hpp"
#include "program/kernels/scatter.hpp"

namespace ndbuf::program {
namespace {

const Attribute& struct_attr(const Op& op, const std::string& key) {
  const Attribute& attr = required_attr(op, key);
  if (attr.kind != Attribute::Kind::kStruct)
    op_error(op, "attribute '" + key + "' must be a structure");
  return attr;
}

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
  const Attribute& s = struct_attr(op, "dot_dimension_numbers");
  const DotDimensions dims{field_ints(op, s, "lhs_batching_dimensions"),
                           field_ints(op, s, "rhs_batching_dimensions"),
                           field_ints(op, s, "lhs_contracting_dimensions"),
                           field_ints(op, s, "rhs_contracting_dimensions")};
  return build_dot_common(op, dims);
}

OpFn build_dot(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const DotDimensions dims = at_op(
      op, [&] { return dot_dimensions(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape); });
  return build_dot_common(op, dims);
}

namespace {

// Reads gather's or scatter's dimension numbers from the struct attribute `attr`: each listed
// integer-list field, in order, then index_vector_dim (0 when absent).
template <class Dims>
Dims read_index_dims(
    const Op& op, const char* attr,
    std::initializer_list<std::pair<const char*, std::vector<int64_t> Dims::*>> lists) {
  const Attribute& s = struct_attr(op, attr);
  Dims dims;
  for (const auto& [field, member] : lists) dims.*member = field_ints(op, s, field);
  const std::vector<int64_t> index_dim = field_ints(op, s, "index_vector_dim");
  dims.index_vector_dim = index_dim.empty() ? 0 : index_dim[0];
  return dims;
}

}  // namespace

OpFn build_gather(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  using G = GatherDimensions;
  const auto dims =
      read_index_dims<G>(op, "dimension_numbers",
                         {{"offset_dims", &G::offset_dims},
                          {"collapsed_slice_dims", &G::collapsed_slice_dims},
                          {"operand_batching_dims", &G::operand_batching_dims},
                          {"start_indices_batching_dims", &G::start_indices_batching_dims},
                          {"start_index_map", &G::start_index_map}});
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
  using S = ScatterDimensions;
  const auto dims =
      read_index_dims<S>(op, "scatter_dimension_numbers",
                         {{"update_window_dims", &S::update_window_dims},
                          {"inserted_window_dims", &S::inserted_window_dims},
                          {"input_batching_dims", &S::input_batching_dims},
                          {"scatter_indices_batching_dims", &S::scatter_indices_batching_dims},
                          {"scatter_dims_to_operand_dims", &S::scatter_dims_to_operand_dims}});
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
