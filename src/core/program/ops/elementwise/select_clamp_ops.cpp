// stablehlo.select and stablehlo.clamp: three operands, of which the predicate (select) or the
// bounds (clamp) may be 0-d; the type rules check the shapes and element types, the builders
// bind the kernels.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// Operand k is a 0-d tensor or one of `like`'s shape, of element type `dtype`.
void expect_scalar_or(const Op& op, size_t k, const Type& like, DType dtype) {
  const Type& t = operand_tensor(op, k);
  if (t.dtype != dtype || (!t.shape.empty() && t.shape != like.shape)) {
    op_error(op, "operand " + std::to_string(k + 1) + " " + type_to_string(t) +
                     " must be 0-d or of shape " + shape_to_tuple(like.shape));
  }
}

}  // namespace

void select_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  const Type& on_true = operand_tensor(op, 1);
  if (operand_tensor(op, 2) != on_true) op_error(op, "both branches must have the same type");
  expect_scalar_or(op, 0, on_true, DType::kPred);
  expect_result_type(op, 0, on_true.dtype, on_true.shape);
}

OpFn build_select(const Op&, const Planning&) {
  return offered_memory_fn([](const Values& a, ResultMemory& memory) {
    return select(a[0].get(), a[1].get(), a[2].get(), memory);
  });
}

void clamp_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  const Type& x = operand_tensor(op, 1);
  expect_scalar_or(op, 0, x, x.dtype);
  expect_scalar_or(op, 2, x, x.dtype);
  expect_result_type(op, 0, x.dtype, x.shape);
}

OpFn build_clamp(const Op&, const Planning&) {
  return offered_memory_fn([](const Values& a, ResultMemory& memory) {
    return clamp(a[0].get(), a[1].get(), a[2].get(), memory);
  });
}

}  // namespace ndbuf::program
