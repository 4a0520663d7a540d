// Builders of the chlo ops that are not plain element-wise kernels: constant_like and the
// implicitly broadcasting binary forms (chlo.broadcast_add, ..., broadcast_compare,
// broadcast_select). Broadcast operands are read through zero strides, never copied.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/kernels/elementwise.hpp"
#include "program/kernels/integer_mulhi.hpp"
#include "program/registry/op_registry.hpp"

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

struct Broadcast {
  Shape shape;
  std::vector<Dims> axes;
};

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

}  // namespace

OpFn build_broadcast_binary(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = find_op(op.name)->binary;  // the kernel its row names
  const Broadcast b = plan_broadcast(op, 2);
  const DType result = at_op(op, [&] {
    return binary_result_dtype(kind, operand_tensor(op, 0).dtype, operand_tensor(op, 1).dtype);
  });
  expect_result_type(op, 0, result, b.shape);
  return tensor_fn([kind, result, b](const Values& a) {
    return binary(kind, broadcast_view(a[0].get(), b.shape, b.axes[0]),
                  broadcast_view(a[1].get(), b.shape, b.axes[1]), result);
  });
}

OpFn build_broadcast_compare(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const DType dtype = operand_tensor(op, 0).dtype;
  if (operand_tensor(op, 1).dtype != dtype) op_error(op, "operands must have one element type");
  const std::string dir_name = attr_word(op, "comparison_direction");
  const auto direction = compare_direction_named(dir_name);
  if (!direction) op_error(op, "has an unknown comparison direction '" + dir_name + "'");
  const std::string type_name = attr_word(op, "compare_type");
  const auto type = compare_type_for(type_name, dtype);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, dtype);
    return 0;
  });
  const Broadcast b = plan_broadcast(op, 2);
  expect_result_type(op, 0, DType::kPred, b.shape);
  const CompareDirection d = *direction;
  const CompareType t = *type;
  return tensor_fn([d, t, b](const Values& a) {
    return compare(d, t, broadcast_view(a[0].get(), b.shape, b.axes[0]),
                   broadcast_view(a[1].get(), b.shape, b.axes[1]));
  });
}

OpFn build_broadcast_select(const Op& op, const Planning&) {
  expect_counts(op, 3, 1);
  if (operand_tensor(op, 0).dtype != DType::kPred) op_error(op, "operand 1 must be of type pred");
  const DType dtype = operand_tensor(op, 1).dtype;
  if (operand_tensor(op, 2).dtype != dtype) {
    op_error(op, "both branches must have one element type");
  }
  const Broadcast b = plan_broadcast(op, 3);
  expect_result_type(op, 0, dtype, b.shape);
  return tensor_fn([b](const Values& a) {
    return select(broadcast_view(a[0].get(), b.shape, b.axes[0]),
                  broadcast_view(a[1].get(), b.shape, b.axes[1]),
                  broadcast_view(a[2].get(), b.shape, b.axes[2]));
  });
}

namespace {

// The scalar attribute `value` (`1.0 : f32`, `true`, a one-element dense<...>) as a 0-d
// tensor of `dtype`; its own type must be `dtype`.
Tensor scalar_value(const Op& op, DType dtype) {
  const Attribute& value = required_attr(op, "value");
  const bool number = value.kind == Attribute::Kind::kFloat || value.kind == Attribute::Kind::kInt;
  const bool typed = number && value.name == element_type_name(dtype);
  if (value.kind == Attribute::Kind::kDense && value.dense && value.dense->numel() == 1 &&
      value.dense->dtype() == dtype) {
    return convert(*value.dense, dtype);  // a fresh 0-d copy (convert() to the same dtype)
  }
  if (typed && (value.kind == Attribute::Kind::kInt || !is_floating(dtype))) {
    if (value.kind != Attribute::Kind::kInt || is_complex(dtype)) {
      op_error(op,
               "value must be a scalar of the operand's element type " + element_type_name(dtype));
    }
    Tensor wide = Tensor::allocate(DType::kI64, {}, Order::kRowMajor);
    *static_cast<int64_t*>(wide.data()) = value.integer;
    return convert(wide, dtype);
  }
  if (typed) {
    Tensor wide = Tensor::allocate(DType::kF64, {}, Order::kRowMajor);
    *static_cast<double*>(wide.data()) = value.number;
    return convert(wide, dtype);
  }
  if (value.kind == Attribute::Kind::kBool && dtype == DType::kPred) {
    Tensor flag = Tensor::allocate(DType::kPred, {}, Order::kRowMajor);
    *static_cast<uint8_t*>(flag.data()) = value.flag ? 1 : 0;
    return flag;
  }
  op_error(op, "value must be a scalar of the operand's element type " + element_type_name(dtype));
}

}  // namespace

OpFn build_constant_like(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& like = operand_tensor(op, 0);
  expect_result_type(op, 0, like.dtype, like.shape);
  const Tensor scalar = scalar_value(op, like.dtype);
  const Shape shape = like.shape;
  const Tensor splat(scalar.storage(), scalar.dtype(), shape, Strides(shape.size(), 0),
                     scalar.offset());
  return [splat](Interpreter&, const Values&) -> Values { return {Value(splat)}; };
}

OpFn build_mulhi(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  if (!is_integer(lhs.dtype)) {
    op_error(op, "operands " + type_to_string(lhs) + " must have an integer element type");
  }
  expect_result_type(op, 0, lhs.dtype, lhs.shape);
  return tensor_fn([](const Values& a) { return mulhi(a[0].get(), a[1].get()); });
}

}  // namespace ndbuf::program
