// Builders of pad, dynamic_slice, dynamic_update_slice and the tuple ops.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/kernels/structure.hpp"

namespace ndbuf::program {
namespace {

void expect_scalar_indices(const Op& op, size_t first, size_t count) {
  if (op.operands.size() != first + count) {
    op_error(op, "needs " + std::to_string(count) + " start indices, one per operand axis");
  }
  for (size_t k = first; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    if (!t.shape.empty() || !is_integer(t.dtype))
      op_error(op, "start indices must be 0-d integer tensors");
  }
}

Dims read_indices(const Values& a, size_t first) {
  Dims out;
  for (size_t k = first; k < a.size(); ++k) out.push_back(scalar_index(a[k].get()));
  return out;
}

}  // namespace

OpFn build_pad(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& value = operand_tensor(op, 1);
  if (!value.shape.empty() || value.dtype != in.dtype)
    op_error(op, "padding value must be a 0-d tensor of the operand's element type");
  const Dims low = attr_ints(op, "edge_padding_low");
  const Dims high = attr_ints(op, "edge_padding_high");
  const Dims interior = attr_ints(op, "interior_padding");
  const size_t rank = in.shape.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank) {
    op_error(op, "needs low, high and interior padding for every axis");
  }
  Shape shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t n = in.shape[k];
    const bool wild = std::abs(low[k]) > (int64_t{1} << 40) ||
                      std::abs(high[k]) > (int64_t{1} << 40) || interior[k] < 0 ||
                      interior[k] > (int64_t{1} << 40);
    if (wild) op_error(op, "padding of axis " + std::to_string(k) + " is out of range");
    // low + high + n + (n - 1) * interior, every step overflow-checked (n may be near 2^62).
    int64_t holes = 0;
    const bool fits =
        checked_mul(n > 0 ? n - 1 : 0, interior[k], &holes) && checked_add(n, holes, &shape[k]) &&
        checked_add(shape[k], low[k], &shape[k]) && checked_add(shape[k], high[k], &shape[k]);
    if (!fits) {
      op_error(
          op, "padding makes axis " + std::to_string(k) + " larger than a 64-bit integer can hold");
    }
    if (shape[k] < 0) op_error(op, "padding makes axis " + std::to_string(k) + " negative");
  }
  expect_result_type(op, 0, in.dtype, shape);
  return tensor_fn([low, high, interior](const Values& a) {
    return pad(a[0].get(), a[1].get(), low, high, interior);
  });
}

OpFn build_dynamic_slice(const Op& op, const Planning&) {
  if (op.operands.empty() || op.result_types.size() != 1)
    op_error(op, "needs an operand and one result");
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
  return tensor_fn(
      [sizes](const Values& a) { return dynamic_slice(a[0].get(), read_indices(a, 1), sizes); });
}

OpFn build_dynamic_update_slice(const Op& op, const Planning&) {
  if (op.operands.size() < 2 || op.result_types.size() != 1)
    op_error(op, "needs an operand, an update and one result");
  const Type& in = operand_tensor(op, 0);
  const Type& update = operand_tensor(op, 1);
  expect_scalar_indices(op, 2, in.shape.size());
  if (update.shape.size() != in.shape.size() || update.dtype != in.dtype) {
    op_error(op,
             "update " + type_to_string(update) + " does not match operand " + type_to_string(in));
  }
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (update.shape[k] > in.shape[k])
      op_error(op, "update is larger than the operand on axis " + std::to_string(k));
  }
  expect_result_type(op, 0, in.dtype, in.shape);
  return tensor_fn([](const Values& a) {
    return dynamic_update_slice(a[0].get(), a[1].get(), read_indices(a, 2));
  });
}

OpFn build_tuple_op(const Op& op, const Planning&) {
  if (op.result_types.size() != 1 || op.result_types[0].kind != Type::Kind::kTuple ||
      op.result_types[0].elements != op.operand_types) {
    op_error(op, "result must be the tuple of the operand types");
  }
  return [](Interpreter&, const Values& a) -> Values {
    Value v;
    v.tuple = std::make_shared<const Values>(a);
    return {v};
  };
}

OpFn build_get_tuple_element(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& t = op.operand_types[0];
  const int64_t index = attr_int(op, "index");
  if (t.kind != Type::Kind::kTuple || index < 0 ||
      index >= static_cast<int64_t>(t.elements.size())) {
    op_error(op, "index " + std::to_string(index) + " is outside the tuple " + type_to_string(t));
  }
  if (t.elements[index] != op.result_types[0])
    op_error(op, "result type does not match the tuple element");
  return [index](Interpreter&, const Values& a) -> Values {
    if (!a[0].tuple) fail(ErrorKind::kInvalidArgument, "get_tuple_element of a non-tuple value");
    return {(*a[0].tuple)[index]};
  };
}

OpFn build_optimization_barrier(const Op& op, const Planning&) {
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
  return [](Interpreter&, const Values& a) -> Values { return a; };
}

}  // namespace ndbuf::program
