// Type rules of the chlo ops that are not plain element-wise kernels: the implicitly
// broadcasting binary forms (numpy's alignment, or broadcast_dimensions for a lower-rank
// operand), broadcast_compare, broadcast_select, constant_like and mulhi.
#include <algorithm>
#include <optional>
#include <utility>

#include "program/exec/attr_access.hpp"
#include "program/kernels/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

using Dims = std::vector<int64_t>;

// The result axes operand `t`'s axes land on.
Dims operand_axes(const Op& op, const Type& t, const Dims& given, size_t rank) {
  Dims axes(t.shape.size());
  const bool mapped = !given.empty() && t.shape.size() < rank;
  if (mapped && given.size() != t.shape.size()) {
    op_error(op, "broadcast_dimensions must have one entry per axis of " + type_to_string(t));
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    axes[k] = mapped ? given[k] : static_cast<int64_t>(rank - t.shape.size() + k);
  }
  if (mapped) check_axes(op, "broadcast_dimensions", axes, static_cast<int64_t>(rank), true);
  return axes;
}

// The broadcast shape of the first `operands` operands (sizes on one axis agree or are 1).
Shape broadcast_shape(const Op& op, size_t operands) {
  std::vector<Type> types;
  size_t rank = 0;
  for (size_t k = 0; k < operands; ++k) {
    types.push_back(operand_tensor(op, k));
    rank = std::max(rank, types.back().shape.size());
  }
  const Dims given = attr_ints_or(op, "broadcast_dimensions", {});
  std::vector<Dims> axes;
  for (const Type& t : types) axes.push_back(operand_axes(op, t, given, rank));
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

// chlo.broadcast_NAME -> the element-wise op it broadcasts.
std::optional<BinaryOp> broadcast_binary_named(const std::string& name) {
  static const std::pair<const char*, const char*> kRenames[] = {
      {"chlo.broadcast_next_after", "chlo.next_after"},
      {"chlo.broadcast_polygamma", "chlo.polygamma"},
      {"chlo.broadcast_zeta", "chlo.zeta"},
  };
  for (const auto& [from, to] : kRenames) {
    if (name == from) return binary_op_named(to);
  }
  return binary_op_named("stablehlo." + name.substr(std::string("chlo.broadcast_").size()));
}

void broadcast_binary_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const BinaryOp kind = *broadcast_binary_named(op.name);
  const Shape shape = broadcast_shape(op, 2);
  const DType result = at_op(op, [&] {
    return binary_result_dtype(kind, operand_tensor(op, 0).dtype, operand_tensor(op, 1).dtype);
  });
  expect_result_type(op, 0, result, shape);
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
  const auto type = type_name.empty() || type_name == "NOTYPE" ? default_compare_type(dtype)
                                                               : compare_type_named(type_name);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, dtype);
    return 0;
  });
  expect_result_type(op, 0, DType::kPred, broadcast_shape(op, 2));
}

void broadcast_select_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  if (operand_tensor(op, 0).dtype != DType::kPred) op_error(op, "operand 1 must be of type pred");
  const DType dtype = operand_tensor(op, 1).dtype;
  if (operand_tensor(op, 2).dtype != dtype) {
    op_error(op, "both branches must have one element type");
  }
  expect_result_type(op, 0, dtype, broadcast_shape(op, 3));
}

// The forms of `value` the builder turns into a scalar of `dtype`: a one-element dense of
// that dtype, an integer typed as `dtype` (not complex), a float typed as a float `dtype`, a
// bool for i1.
bool is_scalar_of(const Attribute& value, DType dtype) {
  if (value.kind == Attribute::Kind::kDense && value.dense && value.dense->numel() == 1 &&
      value.dense->dtype() == dtype) {
    return true;
  }
  const bool number = value.kind == Attribute::Kind::kFloat || value.kind == Attribute::Kind::kInt;
  if (number && value.name == element_type_name(dtype)) {
    if (value.kind == Attribute::Kind::kInt) return !is_complex(dtype);
    return is_floating(dtype);
  }
  return value.kind == Attribute::Kind::kBool && dtype == DType::kPred;
}

void constant_like_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& like = operand_tensor(op, 0);
  expect_result_type(op, 0, like.dtype, like.shape);
  if (!is_scalar_of(required_attr(op, "value"), like.dtype)) {
    op_error(op, "value must be a scalar of the operand's element type " +
                     element_type_name(like.dtype));
  }
}

void mulhi_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  if (!is_integer(lhs.dtype)) {
    op_error(op, "operands " + type_to_string(lhs) + " must have an integer element type");
  }
  expect_result_type(op, 0, lhs.dtype, lhs.shape);
}

}  // namespace

std::vector<TypeRuleEntry> chlo_type_rules() {
  std::vector<TypeRuleEntry> table = {
      {"chlo.constant_like", constant_like_types},
      {"chlo.broadcast_compare", broadcast_compare_types},
      {"chlo.broadcast_select", broadcast_select_types},
      {"chlo.mulhi", mulhi_types},
  };
  for (const char* name :
       {"chlo.broadcast_add", "chlo.broadcast_atan2", "chlo.broadcast_divide",
        "chlo.broadcast_maximum", "chlo.broadcast_minimum", "chlo.broadcast_multiply",
        "chlo.broadcast_next_after", "chlo.broadcast_polygamma", "chlo.broadcast_power",
        "chlo.broadcast_remainder", "chlo.broadcast_shift_left",
        "chlo.broadcast_shift_right_arithmetic", "chlo.broadcast_shift_right_logical",
        "chlo.broadcast_subtract", "chlo.broadcast_zeta", "chlo.broadcast_and", "chlo.broadcast_or",
        "chlo.broadcast_xor", "chlo.broadcast_complex"}) {
    table.push_back({name, broadcast_binary_types});
  }
  return table;
}

}  // namespace ndbuf::program
