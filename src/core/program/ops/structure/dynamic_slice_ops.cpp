// stablehlo.dynamic_slice and dynamic_update_slice: a box of the operand whose start is given
// by run-time 0-d indices (clamped into range then), its sizes static. The type rules check
// the indices and sizes; the builders read the indices when they run.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

namespace {

void expect_scalar_indices(const Op& op, size_t first, size_t count) {
  if (op.operands.size() != first + count) {
    op_error(op, "needs " + std::to_string(count) + " start indices, one per operand axis");
  }
  for (size_t k = first; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    if (!t.shape.empty() || !is_integer(t.dtype)) {
      op_error(op, "start indices must be 0-d integer tensors");
    }
    if (t != op.operand_types[first]) {
      op_error(op, "start indices must share one type, not " +
                       type_to_string(op.operand_types[first]) + " and " + type_to_string(t));
    }
  }
}

Dims read_indices(const Values& a, size_t first) {
  Dims out;
  for (size_t k = first; k < a.size(); ++k) out.push_back(scalar_index(a[k].get()));
  return out;
}

}  // namespace

void dynamic_slice_types(const Op& op, const Module&) {
  if (op.operands.empty() || op.result_types.size() != 1) {
    op_error(op, "needs an operand and one result");
  }
  const Type& in = operand_tensor(op, 0);
  expect_scalar_indices(op, 1, in.shape.size());
  const Dims sizes = attr_ints(op, "slice_sizes");
  if (sizes.size() != in.shape.size()) op_error(op, "needs one slice size per axis");
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0 || sizes[k] > in.shape[k]) {
      op_error(
          op, "slice size " + std::to_string(sizes[k]) + " does not fit axis " + std::to_string(k));
    }
  }
  expect_result_type(op, 0, in.dtype, sizes);
}

// dynamic_slice_types has checked the indices and the sizes.
OpFn build_dynamic_slice(const Op& op, const Planning&) {
  const Dims sizes = attr_ints(op, "slice_sizes");
  return tensor_fn(
      [sizes](const Values& a) { return dynamic_slice(a[0].get(), read_indices(a, 1), sizes); });
}

void dynamic_update_slice_types(const Op& op, const Module&) {
  if (op.operands.size() < 2 || op.result_types.size() != 1) {
    op_error(op, "needs an operand, an update and one result");
  }
  const Type& in = operand_tensor(op, 0);
  const Type& update = operand_tensor(op, 1);
  expect_scalar_indices(op, 2, in.shape.size());
  if (update.shape.size() != in.shape.size() || update.dtype != in.dtype) {
    op_error(op,
             "update " + type_to_string(update) + " does not match operand " + type_to_string(in));
  }
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (update.shape[k] > in.shape[k]) {
      op_error(op, "update is larger than the operand on axis " + std::to_string(k));
    }
  }
  expect_result_type(op, 0, in.dtype, in.shape);
}

OpFn build_dynamic_update_slice(const Op&, const Planning&) {
  return offered_memory_fn([](const Values& a, ResultMemory& memory) {
    return dynamic_update_slice(a[0].get(), a[1].get(), read_indices(a, 2), memory);
  });
}

}  // namespace ndbuf::program
