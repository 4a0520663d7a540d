// The type rule of stablehlo.convolution: dimension numbers and window attributes decoded (in
// every form the two op forms parse into) and the result shape the spec infers from them.
#include "program/exec/attr_access.hpp"
#include "program/kernels/convolution.hpp"
#include "program/verify/type_rules.hpp"

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

// dense<[[lo, hi], ...]> : tensor<Nx2xi64>, or a flat list of pairs.
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

// Only the count of window_reversal entries matters to the type.
std::vector<bool> conv_reversal(const Op& op) {
  const Attribute* attr = find_attr(op.attrs, "window_reversal");
  if (attr == nullptr) return {};
  if (attr->kind == Attribute::Kind::kDense && attr->dense &&
      attr->dense->dtype() == DType::kPred && attr->dense->rank() == 1) {
    return std::vector<bool>(static_cast<size_t>(attr->dense->numel()), false);
  }
  return std::vector<bool>(attr_ints(op, "window_reversal").size(), false);
}

// The result's element type is free (JAX's preferred_element_type); its shape is inferred.
void convolution_types(const Op& op, const Module&) {
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
  const Shape shape = at_op(op, [&] { return convolution_shape(lhs.shape, rhs.shape, c); });
  expect_result_type(op, 0, result_tensor(op, 0).dtype, shape);
}

}  // namespace

std::vector<TypeRuleEntry> convolution_type_rules() {
  return {{"stablehlo.convolution", convolution_types}};
}

}  // namespace ndbuf::program
