// chlo's implicitly broadcasting forms: chlo.broadcast_add, ... (NDBUF_BROADCAST rows, over a
// BinaryOp kernel), broadcast_compare and broadcast_select. Operands are aligned by numpy's
// rule, or by broadcast_dimensions for a lower-rank operand. The type rules and the builders
// read the alignment through one plan_broadcast(); broadcast operands are read through zero
// strides, never copied.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/registry/op_registry.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

using Dims = std::vector<int64_t>;

// The result axes each operand's axes land on: broadcast_dimensions for a lower-rank operand
// when given, else its axes aligned with the result's last ones (numpy's rule).
std::vector<Dims> operand_axes(const Op& op, const std::vector<Type>& types, size_t rank) {
  const Dims given = attr_ints_or(op, "broadcast_dimensions", {});
  std::vector<Dims> axes;
  for (const Type& t : types) {
    Dims d(t.shape.size());
    const bool mapped = !given.empty() && t.shape.size() < rank;
    if (mapped && given.size() != t.shape.size()) {
      op_error(op, "broadcast_dimensions must have one entry per axis of " + type_to_string(t));
    }
    for (size_t k = 0; k < d.size(); ++k) {
      d[k] = mapped ? given[k] : static_cast<int64_t>(rank - t.shape.size() + k);
    }
    if (mapped) check_axes(op, "broadcast_dimensions", d, static_cast<int64_t>(rank), true);
    axes.push_back(std::move(d));
  }
  return axes;
}

// The broadcast shape of `types` (sizes on one axis must agree or be 1).
Shape broadcast_shape(const Op& op, const std::vector<Type>& types, const std::vector<Dims>& axes,
                      size_t rank) {
  Shape shape(rank, 1);
  for (size_t i = 0; i < types.size(); ++i) {
    for (size_t k = 0; k < axes[i].size(); ++k) {
      int64_t& out = shape[static_cast<size_t>(axes[i][k])];
      const int64_t size = types[i].shape[k];
      if (size != 1 && out != 1 && size != out) {
        op_error(op, "cannot broadcast " + type_to_string(types[0]) + " and " +
                         type_to_string(types.back()) + " together");
      }
      if (size != 1) out = size;
    }
  }
  return shape;
}

struct Broadcast {
  Shape shape;
  std::vector<Dims> axes;
};

// The result shape of the first `operands` operands and where each one's axes land.
Broadcast plan_broadcast(const Op& op, size_t operands) {
  std::vector<Type> types;
  size_t rank = 0;
  for (size_t k = 0; k < operands; ++k) {
    types.push_back(operand_tensor(op, k));
    rank = std::max(rank, types.back().shape.size());
  }
  std::vector<Dims> axes = operand_axes(op, types, rank);
  Shape shape = broadcast_shape(op, types, axes, rank);
  return {std::move(shape), std::move(axes)};
}

// A view of `x` as `shape`, its axis k on result axis axes[k]; size-1 axes repeat.
Tensor broadcast_view(const Tensor& x, const Shape& shape, const Dims& axes) {
  if (x.shape() == shape) return x;
  Strides strides(shape.size(), 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const auto axis = static_cast<size_t>(axes[k]);
    if (x.shape()[k] == shape[axis]) strides[axis] = x.strides()[k];
  }
  return Tensor(x.storage(), x.dtype(), shape, strides, x.offset());
}

}  // namespace

void broadcast_binary_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = op_row(op.id).binary;  // the kernel its row names
  const Shape shape = plan_broadcast(op, 2).shape;
  const DType result = at_op(op, [&] {
    return binary_result_dtype(kind, operand_tensor(op, 0).dtype, operand_tensor(op, 1).dtype);
  });
  expect_result_type(op, 0, result, shape);
}

// broadcast_binary_types has checked the operands, their alignment and the result type.
OpFn build_broadcast_binary(const Op& op, const Planning&) {
  const BinaryOp kind = op_row(op.id).binary;
  const Broadcast b = plan_broadcast(op, 2);
  const DType result = result_tensor(op, 0).dtype;
  return tensor_fn([kind, result, b](const Values& a) {
    return binary(kind, broadcast_view(a[0].get(), b.shape, b.axes[0]),
                  broadcast_view(a[1].get(), b.shape, b.axes[1]), result);
  });
}

void broadcast_compare_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const DType dtype = operand_tensor(op, 0).dtype;
  if (operand_tensor(op, 1).dtype != dtype) op_error(op, "operands must have one element type");
  const std::string dir_name = attr_word(op, "comparison_direction");
  if (!compare_direction_named(dir_name)) {
    op_error(op, "has an unknown comparison direction '" + dir_name + "'");
  }
  const std::string type_name = attr_word(op, "compare_type");
  const auto type = compare_type_for(type_name, dtype);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, dtype);
    return 0;
  });
  expect_result_type(op, 0, DType::kPred, plan_broadcast(op, 2).shape);
}

// broadcast_compare_types has checked the operands, the direction and the compare type.
OpFn build_broadcast_compare(const Op& op, const Planning&) {
  const CompareDirection d = *compare_direction_named(attr_word(op, "comparison_direction"));
  const CompareType t =
      *compare_type_for(attr_word(op, "compare_type"), operand_tensor(op, 0).dtype);
  const Broadcast b = plan_broadcast(op, 2);
  return tensor_fn([d, t, b](const Values& a) {
    return compare(d, t, broadcast_view(a[0].get(), b.shape, b.axes[0]),
                   broadcast_view(a[1].get(), b.shape, b.axes[1]));
  });
}

void broadcast_select_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  if (operand_tensor(op, 0).dtype != DType::kPred) op_error(op, "operand 1 must be of type pred");
  const DType dtype = operand_tensor(op, 1).dtype;
  if (operand_tensor(op, 2).dtype != dtype) {
    op_error(op, "both branches must have one element type");
  }
  expect_result_type(op, 0, dtype, plan_broadcast(op, 3).shape);
}

OpFn build_broadcast_select(const Op& op, const Planning&) {
  const Broadcast b = plan_broadcast(op, 3);
  return tensor_fn([b](const Values& a) {
    return select(broadcast_view(a[0].get(), b.shape, b.axes[0]),
                  broadcast_view(a[1].get(), b.shape, b.axes[1]),
                  broadcast_view(a[2].get(), b.shape, b.axes[2]));
  });
}

}  // namespace ndbuf::program
