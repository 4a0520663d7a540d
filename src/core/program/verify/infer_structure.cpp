// Type rules of the structural ops: constant, iota, reshape, broadcast_in_dim, transpose,
// slice, reverse, concatenate, pad, dynamic_slice, dynamic_update_slice and the tuple ops.
#include <cstdlib>

#include "program/exec/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

using Dims = std::vector<int64_t>;

void expect_same_dtype(const Op& op, const Type& a, const Type& b) {
  if (a.dtype != b.dtype) {
    op_error(op, "element types differ: " + type_to_string(a) + " and " + type_to_string(b));
  }
}

void constant_types(const Op& op, const Module&) {
  expect_counts(op, 0, 1);
  const Attribute& value = required_attr(op, "value");
  if (value.kind != Attribute::Kind::kDense || !value.dense) op_error(op, "needs a dense value");
  if (value.type != op.result_types[0]) {
    op_error(op, "value of type " + type_to_string(value.type) + " does not match result type " +
                     type_to_string(op.result_types[0]));
  }
}

void iota_types(const Op& op, const Module&) {
  expect_counts(op, 0, 1);
  const Type& result = result_tensor(op, 0);
  // A count 0, 1, 2, ... has no boolean meaning: the spec allows integer, float and complex.
  if (result.dtype == DType::kPred) {
    op_error(op, "needs an integer, floating-point or complex result type, not " +
                     type_to_string(result));
  }
  const int64_t dim = attr_int(op, "iota_dimension");
  check_axes(op, "iota_dimension", {dim}, static_cast<int64_t>(result.shape.size()), false);
}

void reshape_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& result = result_tensor(op, 0);
  expect_same_dtype(op, in, result);
  if (checked_numel(in.shape) != checked_numel(result.shape)) {
    op_error(op, "cannot reshape " + type_to_string(in) + " to " + type_to_string(result) +
                     ": the sizes differ");
  }
}

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

void transpose_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_same_dtype(op, in, result_tensor(op, 0));
  const Dims perm = attr_ints(op, "permutation");
  if (perm.size() != in.shape.size()) op_error(op, "permutation must have one entry per axis");
  check_axes(op, "permutation entry", perm, static_cast<int64_t>(perm.size()), true);
  Shape shape(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) shape[k] = in.shape[perm[k]];
  expect_result_shape(op, shape);
}

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

void reverse_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  const Dims dims = attr_ints(op, "dimensions");
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  expect_result_type(op, 0, in.dtype, in.shape);
}

void concatenate_types(const Op& op, const Module&) {
  if (op.operands.empty() || op.result_types.size() != 1) {
    op_error(op, "needs operands and one result");
  }
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
    if (other != shape) {
      op_error(op, "operands differ in a dimension other than " + std::to_string(dim));
    }
  }
  expect_result_type(op, 0, first.dtype, shape);
}

// low + high + n + (n - 1) * interior, each step overflow-checked (n may be near 2^62).
int64_t padded_size(const Op& op, size_t k, int64_t n, int64_t low, int64_t high,
                    int64_t interior) {
  constexpr int64_t kWild = int64_t{1} << 40;
  if (std::abs(low) > kWild || std::abs(high) > kWild || interior < 0 || interior > kWild) {
    op_error(op, "padding of axis " + std::to_string(k) + " is out of range");
  }
  int64_t holes = 0;
  int64_t size = 0;
  const bool fits = checked_mul(n > 0 ? n - 1 : 0, interior, &holes) &&
                    checked_add(n, holes, &size) && checked_add(size, low, &size) &&
                    checked_add(size, high, &size);
  if (!fits) {
    op_error(op,
             "padding makes axis " + std::to_string(k) + " larger than a 64-bit integer can hold");
  }
  if (size < 0) op_error(op, "padding makes axis " + std::to_string(k) + " negative");
  return size;
}

void pad_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& value = operand_tensor(op, 1);
  if (!value.shape.empty() || value.dtype != in.dtype) {
    op_error(op, "padding value must be a 0-d tensor of the operand's element type");
  }
  const Dims low = attr_ints(op, "edge_padding_low");
  const Dims high = attr_ints(op, "edge_padding_high");
  const Dims interior = attr_ints(op, "interior_padding");
  const size_t rank = in.shape.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank) {
    op_error(op, "needs low, high and interior padding for every axis");
  }
  Shape shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    shape[k] = padded_size(op, k, in.shape[k], low[k], high[k], interior[k]);
  }
  expect_result_type(op, 0, in.dtype, shape);
}

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

// The start indices are run-time values (clamped into range then); the sizes are static.
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

void tuple_types(const Op& op, const Module&) {
  if (op.result_types.size() != 1 || op.result_types[0].kind != Type::Kind::kTuple ||
      op.result_types[0].elements != op.operand_types) {
    op_error(op, "result must be the tuple of the operand types");
  }
}

void get_tuple_element_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& t = op.operand_types[0];
  const int64_t index = attr_int(op, "index");
  if (t.kind != Type::Kind::kTuple || index < 0 ||
      index >= static_cast<int64_t>(t.elements.size())) {
    op_error(op, "index " + std::to_string(index) + " is outside the tuple " + type_to_string(t));
  }
  if (t.elements[index] != op.result_types[0]) {
    op_error(op, "result type does not match the tuple element");
  }
}

void optimization_barrier_types(const Op& op, const Module&) {
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
}

}  // namespace

std::vector<TypeRuleEntry> structure_type_rules() {
  return {
      {"stablehlo.constant", constant_types},
      {"stablehlo.iota", iota_types},
      {"stablehlo.reshape", reshape_types},
      {"stablehlo.broadcast_in_dim", broadcast_in_dim_types},
      {"stablehlo.transpose", transpose_types},
      {"stablehlo.slice", slice_types},
      {"stablehlo.reverse", reverse_types},
      {"stablehlo.concatenate", concatenate_types},
      {"stablehlo.pad", pad_types},
      {"stablehlo.dynamic_slice", dynamic_slice_types},
      {"stablehlo.dynamic_update_slice", dynamic_update_slice_types},
      {"stablehlo.tuple", tuple_types},
      {"stablehlo.get_tuple_element", get_tuple_element_types},
      {"stablehlo.optimization_barrier", optimization_barrier_types},
  };
}

}  // namespace ndbuf::program
