// Attribute readers and shape checks shared by the op builders.
#include "program/ir/attr_access.hpp"

#include <set>

#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {

void op_error(const Op& op, const std::string& message) {
  fail_at(op.loc, "'" + op.name + "' " + message);
}

const Attribute& required_attr(const Op& op, const std::string& key) {
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) op_error(op, "needs the attribute '" + key + "'");
  return *attr;
}

namespace {

// The values of a dense integer tensor, in row-major order.
std::vector<int64_t> tensor_ints(const Tensor& t) {
  const Tensor dense = make_dense(t, Order::kRowMajor);
  std::vector<int64_t> out;
  dispatch(dense.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* data = static_cast<const T*>(dense.data());
      for (int64_t k = 0; k < dense.numel(); ++k) out.push_back(static_cast<int64_t>(data[k]));
    }
  });
  return out;
}

std::vector<int64_t> ints_of(const Op& op, const std::string& key, const Attribute& attr) {
  if (attr.kind == Attribute::Kind::kArray) return attr.ints;
  if (attr.kind == Attribute::Kind::kDense && attr.dense && is_integer(attr.dense->dtype()) &&
      attr.dense->rank() <= 1) {
    return tensor_ints(*attr.dense);
  }
  op_error(op, "attribute '" + key + "' must be a list of integers");
}

}  // namespace

std::vector<int64_t> attr_ints(const Op& op, const std::string& key) {
  return ints_of(op, key, required_attr(op, key));
}

std::vector<int64_t> attr_ints_or(const Op& op, const std::string& key,
                                  std::vector<int64_t> fallback) {
  const Attribute* attr = find_attr(op.attrs, key);
  return attr == nullptr ? fallback : ints_of(op, key, *attr);
}

int64_t attr_int(const Op& op, const std::string& key) {
  const Attribute& attr = required_attr(op, key);
  if (attr.kind != Attribute::Kind::kInt)
    op_error(op, "attribute '" + key + "' must be an integer");
  return attr.integer;
}

int64_t attr_int_or(const Op& op, const std::string& key, int64_t fallback) {
  return find_attr(op.attrs, key) == nullptr ? fallback : attr_int(op, key);
}

bool attr_bool_or(const Op& op, const std::string& key, bool fallback) {
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) return fallback;
  if (attr->kind == Attribute::Kind::kUnit) return true;
  if (attr->kind != Attribute::Kind::kBool)
    op_error(op, "attribute '" + key + "' must be true or false");
  return attr->flag;
}

double attr_number_or(const Op& op, const std::string& key, double fallback) {
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) return fallback;
  if (attr->kind != Attribute::Kind::kFloat && attr->kind != Attribute::Kind::kInt) {
    op_error(op, "attribute '" + key + "' must be a number");
  }
  return attr->number;
}

std::string attr_word(const Op& op, const std::string& key) {
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) return "";
  if (attr->kind != Attribute::Kind::kEnum && attr->kind != Attribute::Kind::kWord &&
      attr->kind != Attribute::Kind::kString) {
    op_error(op, "attribute '" + key + "' must be an enum value");
  }
  return attr->text;
}

std::vector<int64_t> field_ints(const Op& op, const Attribute& s, const std::string& key) {
  const Attribute* field = s.field(key);
  if (field == nullptr) return {};
  if (field->kind == Attribute::Kind::kArray) return field->ints;
  if (field->kind == Attribute::Kind::kInt) return {field->integer};
  op_error(op, "field '" + key + "' must be a list of integers");
}

std::vector<std::vector<int64_t>> attr_int_rows(const Op& op, const std::string& key) {
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) return {};
  if (attr->kind != Attribute::Kind::kDense || !attr->dense || !is_integer(attr->dense->dtype()) ||
      attr->dense->rank() != 2) {
    op_error(op, "attribute '" + key + "' must be a 2-d integer tensor");
  }
  const std::vector<int64_t> values = tensor_ints(*attr->dense);
  const auto rows = static_cast<size_t>(attr->dense->shape()[0]);
  const auto columns = static_cast<size_t>(attr->dense->shape()[1]);
  std::vector<std::vector<int64_t>> out(rows);
  for (size_t r = 0; r < rows; ++r) {
    out[r].assign(values.begin() + static_cast<std::ptrdiff_t>(r * columns),
                  values.begin() + static_cast<std::ptrdiff_t>((r + 1) * columns));
  }
  return out;
}

std::vector<std::pair<int64_t, int64_t>> attr_padding(const Op& op, const std::string& key,
                                                      size_t rank) {
  const Attribute* attr = find_attr(op.attrs, key);
  std::vector<std::pair<int64_t, int64_t>> pairs(rank, {0, 0});
  if (attr == nullptr) return pairs;
  const bool shaped = attr->kind == Attribute::Kind::kDense && attr->dense &&
                      is_integer(attr->dense->dtype()) &&
                      attr->dense->shape() == Shape{static_cast<int64_t>(rank), 2};
  if (!shaped)
    op_error(op, "attribute '" + key + "' must be a " + std::to_string(rank) + "x2 integer tensor");
  const std::vector<int64_t> values = tensor_ints(*attr->dense);
  for (size_t k = 0; k < rank; ++k) pairs[k] = {values[2 * k], values[2 * k + 1]};
  return pairs;
}

const Type& operand_tensor(const Op& op, size_t k) {
  if (k >= op.operand_types.size() || !op.operand_types[k].is_tensor()) {
    op_error(op, "operand " + std::to_string(k + 1) + " must be a tensor");
  }
  return op.operand_types[k];
}

const Type& result_tensor(const Op& op, size_t k) {
  if (k >= op.result_types.size() || !op.result_types[k].is_tensor()) {
    op_error(op, "result " + std::to_string(k + 1) + " must be a tensor");
  }
  return op.result_types[k];
}

void expect_counts(const Op& op, size_t operands, size_t results) {
  if (op.operands.size() != operands || op.result_types.size() != results) {
    op_error(op, "takes " + std::to_string(operands) + " operand(s) and gives " +
                     std::to_string(results) + " result(s), not " +
                     std::to_string(op.operands.size()) + " and " +
                     std::to_string(op.result_types.size()));
  }
}

void expect_same_dtype(const Op& op, const Type& a, const Type& b) {
  if (a.dtype != b.dtype) {
    op_error(op, "element types differ: " + type_to_string(a) + " and " + type_to_string(b));
  }
}

void expect_result_shape(const Op& op, const Shape& shape) {
  const Type& result = result_tensor(op, 0);
  if (result.shape != shape) {
    op_error(op, "result type " + type_to_string(result) + " should have shape " +
                     shape_to_tuple(shape));
  }
}

void expect_result_type(const Op& op, size_t k, DType dtype, const Shape& shape) {
  const Type& result = result_tensor(op, k);
  if (result.dtype != dtype || result.shape != shape) {
    const std::string which =
        op.result_types.size() > 1 ? "result " + std::to_string(k + 1) : "result";
    op_error(op, which + " type " + type_to_string(result) + " should be " +
                     type_to_string(Type::tensor(dtype, shape)));
  }
}

void expect_region_args(const Op& op, const Region& region, const std::vector<Type>& types) {
  if (region.arg_types != types) {
    fail_at(region.loc, "region of '" + op.name + "' takes (" + types_to_string(region.arg_types) +
                            ") but should take (" + types_to_string(types) + ")");
  }
}

void expect_region_returns(const Op& op, const Region& region, const std::vector<Type>& types) {
  const Op& ret = region.ops.back();
  if (ret.operand_types != types) {
    fail_at(ret.loc, "region of '" + op.name + "' returns (" + types_to_string(ret.operand_types) +
                         ") but should return (" + types_to_string(types) + ")");
  }
}

std::vector<Type> scalar_types(const std::vector<DType>& dtypes) {
  std::vector<Type> out;
  for (DType d : dtypes) out.push_back(Type::tensor(d, {}));
  return out;
}

void check_axes(const Op& op, const std::string& what, const std::vector<int64_t>& axes,
                int64_t bound, bool distinct) {
  std::set<int64_t> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= bound) {
      op_error(
          op, what + " " + std::to_string(axis) + " is outside [0, " + std::to_string(bound) + ")");
    }
    if (distinct && !seen.insert(axis).second) {
      op_error(op, what + " " + std::to_string(axis) + " appears twice");
    }
  }
}

}  // namespace ndbuf::program
