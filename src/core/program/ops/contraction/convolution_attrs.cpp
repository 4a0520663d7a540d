// Decoding of stablehlo.convolution's operands and attributes into a ConvConfig: dimension
// numbers (the structure both op forms parse into), window attributes (arrays, dense tensors,
// the pretty form's lists) and group counts. The type rule and the builder both read it.
#include "program/ops/contraction/convolution_attrs.hpp"

#include <string>

#include "ndbuf/memory/transfer.hpp"
#include "program/ir/attr_access.hpp"

namespace ndbuf::program {
namespace {

int64_t field_int(const Op& op, const Attribute& s, const std::string& key) {
  const Attribute* field = s.field(key);
  if (field == nullptr || field->kind != Attribute::Kind::kInt) {
    op_error(op, "dimension_numbers needs the integer field '" + key + "'");
  }
  return field->integer;
}

std::vector<int64_t> field_list(const Op& op, const Attribute& s, const std::string& key) {
  if (s.field(key) == nullptr) op_error(op, "dimension_numbers needs the field '" + key + "'");
  return field_ints(op, s, key);
}

ConvDimensions conv_dimensions(const Op& op) {
  const Attribute& s = required_attr(op, "dimension_numbers");
  if (s.kind != Attribute::Kind::kStruct) {
    op_error(op, "attribute 'dimension_numbers' must be a #stablehlo.conv<...> attribute");
  }
  ConvDimensions d;
  d.input_batch = field_int(op, s, "input_batch_dimension");
  d.input_feature = field_int(op, s, "input_feature_dimension");
  d.input_spatial = field_list(op, s, "input_spatial_dimensions");
  d.kernel_input_feature = field_int(op, s, "kernel_input_feature_dimension");
  d.kernel_output_feature = field_int(op, s, "kernel_output_feature_dimension");
  d.kernel_spatial = field_list(op, s, "kernel_spatial_dimensions");
  d.output_batch = field_int(op, s, "output_batch_dimension");
  d.output_feature = field_int(op, s, "output_feature_dimension");
  d.output_spatial = field_list(op, s, "output_spatial_dimensions");
  return d;
}

// dense<[[lo, hi], ...]> : tensor<Nx2xi64>, or the flat list of pairs the pretty form's
// `pad = [[lo, hi], ...]` and array<i64: ...> give.
std::vector<std::pair<int64_t, int64_t>> conv_padding(const Op& op, size_t spatial) {
  const Attribute* attr = find_attr(op.attrs, "padding");
  if (attr == nullptr) return {};
  if (attr->kind == Attribute::Kind::kDense) return attr_padding(op, "padding", spatial);
  const std::vector<int64_t> flat = attr_ints(op, "padding");
  if (flat.size() % 2 != 0) op_error(op, "attribute 'padding' must list (low, high) pairs");
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (size_t k = 0; k < flat.size(); k += 2) pairs.emplace_back(flat[k], flat[k + 1]);
  return pairs;
}

// array<i1: true, false>, dense<[true, false]> : tensor<2xi1>, or the pretty form's list.
std::vector<bool> conv_reversal(const Op& op) {
  const Attribute* attr = find_attr(op.attrs, "window_reversal");
  if (attr == nullptr) return {};
  std::vector<bool> out;
  if (attr->kind == Attribute::Kind::kDense && attr->dense &&
      attr->dense->dtype() == DType::kPred && attr->dense->rank() == 1) {
    const Tensor dense = make_dense(*attr->dense, Order::kRowMajor);
    const auto* bytes = static_cast<const uint8_t*>(dense.data());
    for (int64_t k = 0; k < dense.numel(); ++k) out.push_back(bytes[k] != 0);
    return out;
  }
  for (int64_t v : attr_ints(op, "window_reversal")) out.push_back(v != 0);
  return out;
}

}  // namespace

ConvConfig convolution_config(const Op& op) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  if (lhs.dtype != rhs.dtype) {
    op_error(op, "operands must have one element type, not " + type_to_string(lhs) + " and " +
                     type_to_string(rhs));
  }
  ConvConfig c;
  c.dims = conv_dimensions(op);
  const size_t spatial = lhs.shape.size() < 2 ? 0 : lhs.shape.size() - 2;
  c.window.strides = attr_ints_or(op, "window_strides", {});
  c.window.padding = conv_padding(op, spatial);
  c.window.lhs_dilation = attr_ints_or(op, "lhs_dilation", {});
  c.window.rhs_dilation = attr_ints_or(op, "rhs_dilation", {});
  c.window.reversal = conv_reversal(op);
  c.feature_group_count = attr_int_or(op, "feature_group_count", 1);
  c.batch_group_count = attr_int_or(op, "batch_group_count", 1);
  return c;
}

}  // namespace ndbuf::program
