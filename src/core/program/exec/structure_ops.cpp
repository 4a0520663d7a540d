// Builders of the structural ops: constant, iota, reshape, broadcast_in_dim, transpose,
// slice, reverse, concatenate, pad, dynamic_slice, dynamic_update_slice.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/kernels/structure.hpp"

namespace ndbuf::program {
namespace {

void expect_same_dtype(const Op& op, const Type& a, const Type& b) {
  if (a.dtype != b.dtype) {
    op_error(op, "element types differ: " + type_to_string(a) + " and " + type_to_string(b));
  }
}

}  // namespace

OpFn build_constant(const Op& op, const Planning&) {
  expect_counts(op, 0, 1);
  const Attribute& value = required_attr(op, "value");
  if (value.kind != Attribute::Kind::kDense || !value.dense) op_error(op, "needs a dense value");
  if (value.type != op.result_types[0]) {
    op_error(op, "value of type " + type_to_string(value.type) + " does not match result type " +
                     type_to_string(op.result_types[0]));
  }
  const Tensor tensor = *value.dense;
  return [tensor](Interpreter&, const Values&) -> Values { return {Value(tensor)}; };
}

OpFn build_iota(const Op& op, const Planning&) {
  expect_counts(op, 0, 1);
  const Type result = result_tensor(op, 0);
  // The spec (and XLA's verifier) allow integer, floating-point and complex results only: a
  // count 0, 1, 2, ... has no boolean meaning (bytes 2, 3, ... would not be booleans at all).
  if (result.dtype == DType::kPred) {
    op_error(op, "needs an integer, floating-point or complex result type, not " +
                     type_to_string(result));
  }
  const int64_t dim = attr_int(op, "iota_dimension");
  check_axes(op, "iota_dimension", {dim}, static_cast<int64_t>(result.shape.size()), false);
  return tensor_fn([result, dim](const Values&) { return iota(result.dtype, result.shape, dim); });
}

OpFn build_reshape(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Type result = result_tensor(op, 0);
  expect_same_dtype(op, in, result);
  if (checked_numel(in.shape) != checked_numel(result.shape)) {
    op_error(op, "cannot reshape " + type_to_string(in) + " to " + type_to_string(result) +
                     ": the sizes differ");
  }
  return tensor_fn([result](const Values& a) { return reshape(a[0].get(), result.shape); });
}

OpFn build_broadcast_in_dim(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Type result = result_tensor(op, 0);
  expect_same_dtype(op, in, result);
  const Dims dims = attr_ints(op, "broadcast_dimensions");
  if (dims.size() != in.shape.size())
    op_error(op, "needs one broadcast dimension per operand axis");
  check_axes(op, "broadcast dimension", dims, static_cast<int64_t>(result.shape.size()), true);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (in.shape[k] != 1 && in.shape[k] != result.shape[dims[k]]) {
      op_error(op, "operand axis " + std::to_string(k) + " of size " + std::to_string(in.shape[k]) +
                       " cannot broadcast to size " + std::to_string(result.shape[dims[k]]));
    }
  }
  return tensor_fn(
      [result, dims](const Values& a) { return broadcast_in_dim(a[0].get(), result.shape, dims); });
}

OpFn build_transpose(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_same_dtype(op, in, result_tensor(op, 0));
  const Dims perm = attr_ints(op, "permutation");
  if (perm.size() != in.shape.size()) op_error(op, "permutation must have one entry per axis");
  check_axes(op, "permutation entry", perm, static_cast<int64_t>(perm.size()), true);
  Shape shape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) shape[k] = in.shape[perm[k]];
  expect_result_shape(op, shape);
  return tensor_fn([perm](const Values& a) { return transpose(a[0].get(), perm); });
}

OpFn build_slice(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_same_dtype(op, in, result_tensor(op, 0));
  const Dims start = attr_ints(op, "start_indices");
  const Dims limit = attr_ints(op, "limit_indices");
  const Dims stride = attr_ints_or(op, "strides", Dims(in.shape.size(), 1));
  const size_t rank = in.shape.size();
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
  return tensor_fn(
      [start, limit, stride](const Values& a) { return slice(a[0].get(), start, limit, stride); });
}

OpFn build_reverse(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Dims dims = attr_ints(op, "dimensions");
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  expect_result_type(op, 0, in.dtype, in.shape);
  return tensor_fn([dims](const Values& a) { return reverse(a[0].get(), dims); });
}

OpFn build_concatenate(const Op& op, const Planning&) {
  if (op.operands.empty() || op.result_types.size() != 1)
    op_error(op, "needs operands and one result");
  const Type& first = operand_tensor(op, 0);
  const int64_t dim = attr_int(op, "dimension");
  check_axes(op, "dimension", {dim}, static_cast<int64_t>(first.shape.size()), false);
  Shape shape = first.shape;
  shape[dim] = 0;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    Shape other = t.shape;
    if (other.size() != shape.size()) op_error(op, "operands must have the same rank");
    expect_same_dtype(op, first, t);
    if (!checked_add(shape[dim], other[dim], &shape[dim])) {
      op_error(op, "the operands' sizes along dimension " + std::to_string(dim) +
                       " add up to more than a 64-bit integer can hold");
    }
    other[dim] = shape[dim];
    if (other != shape)
      op_error(op, "operands differ in a dimension other than " + std::to_string(dim));
  }
  expect_result_type(op, 0, first.dtype, shape);
  return tensor_fn([dim](const Values& a) {
    std::vector<Tensor> xs;
    for (const Value& v : a) xs.push_back(v.get());
    return concatenate(xs, dim);
  });
}

}  // namespace ndbuf::program
