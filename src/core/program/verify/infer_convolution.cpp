// The type rule of stablehlo.convolution: the result shape the spec infers from the operands
// and the decoded attributes (convolution_attrs.hpp).
#include "program/exec/attr_access.hpp"
#include "program/exec/convolution_attrs.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// The result's element type is free (JAX's preferred_element_type); its shape is inferred.
void convolution_types(const Op& op, const Module&) {
  ConvConfig c = convolution_config(op);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  const Shape shape = at_op(op, [&] { return convolution_shape(lhs.shape, rhs.shape, c); });
  expect_result_type(op, 0, result_tensor(op, 0).dtype, shape);
}

}  // namespace

std::vector<TypeRuleEntry> convolution_type_rules() {
  return {{"stablehlo.convolution", convolution_types}};
}

}  // namespace ndbuf::program
