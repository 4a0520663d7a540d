// stablehlo.dot_general and stablehlo.dot over ops/contraction/dot_general.hpp: the dimension
// numbers
// (#stablehlo.dot<...>, read through ops/indexing/index_dims.hpp; dot's are implied by the
// ranks), the type rules' result shape, the builders' kernel.
#include <memory>

#include "program/exec/builders.hpp"
#include "program/exec/matvec_pairs.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/contraction/dot_general.hpp"
#include "program/ops/indexing/index_dims.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// dot's dimension numbers: the contraction of lhs's last axis with rhs's first.
DotDimensions dot_dims(const Op& op) {
  return at_op(
      op, [&] { return dot_dimensions(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape); });
}

// One element type on both sides (the spec's C13); the result's element type is free (the
// products accumulate in it, the kernel converts), its shape is inferred.
void dot_result(const Op& op, const DotDimensions& dims) {
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.dtype != rhs.dtype) {
    op_error(op, "operands must have one element type, not " + type_to_string(lhs) + " and " +
                     type_to_string(rhs));
  }
  const Shape shape = at_op(op, [&] { return dot_general_shape(lhs.shape, rhs.shape, dims); });
  expect_result_type(op, 0, result_tensor(op, 0).dtype, shape);
}

// The dims are split once, here: the type rule has checked them against the static shapes.
OpFn dot_fn(const Op& op, const DotDimensions& dims) {
  const DType result = result_tensor(op, 0).dtype;
  auto plan = std::make_shared<const DotPlan>(
      plan_dot(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape, dims));
  return tensor_fn([plan, result](const Values& a) {
    return planned_dot_general(a[0].get(), a[1].get(), *plan, result);
  });
}

}  // namespace

void dot_general_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  dot_result(op, dot_general_dimensions(op));
}

// dot_general_types has checked the operands, the dimension numbers and the result type.
OpFn build_dot_general(const Op& op, const Planning&) {
  return dot_fn(op, dot_general_dimensions(op));
}

void dot_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  dot_result(op, dot_dims(op));
}

// dot_types has checked the operands' ranks and the result type.
OpFn build_dot(const Op& op, const Planning&) { return dot_fn(op, dot_dims(op)); }

std::optional<MatvecProduct> matvec_product(const Op& op) {
  if (op.id != OpId::kDotGeneral || op.operands.size() != 2 || op.result_types.size() != 1) {
    return std::nullopt;
  }
  const size_t lhs_rank = op.operand_types[0].shape.size();
  const size_t rhs_rank = op.operand_types[1].shape.size();
  if (lhs_rank + rhs_rank != 3 || lhs_rank == 0 || rhs_rank == 0) return std::nullopt;
  const DotDimensions dims = dot_general_dimensions(op);
  if (!dims.lhs_batching_dimensions.empty() || dims.lhs_contracting_dimensions.size() != 1) {
    return std::nullopt;
  }
  MatvecProduct product;
  product.matrix = lhs_rank == 2 ? 0 : 1;
  product.contracted =
      product.matrix == 0 ? dims.lhs_contracting_dimensions[0] : dims.rhs_contracting_dimensions[0];
  return product;
}

}  // namespace ndbuf::program
