// stablehlo.convolution over ops/contraction/convolution.hpp: the type rule infers the result shape
// from the operands and the decoded attributes (convolution_attrs.hpp); the builder checks the
// precision config and binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/contraction/convolution.hpp"
#include "program/ops/contraction/convolution_attrs.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// Accepted and ignored, as XLA's CPU backend does: at most one precision per operand.
void check_precision_config(const Op& op) {
  const Attribute* attr = find_attr(op.attrs, "precision_config");
  if (attr == nullptr) return;
  const size_t count = attr->kind == Attribute::Kind::kList    ? attr->items.size()
                       : attr->kind == Attribute::Kind::kArray ? attr->ints.size()
                                                               : 3;
  if (count > 2) op_error(op, "attribute 'precision_config' must list at most 2 precisions");
}

}  // namespace

// The result's element type is free (JAX's preferred_element_type); its shape is inferred.
void convolution_types(const Op& op, const Module&) {
  ConvConfig c = convolution_config(op);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  const Shape shape = at_op(op, [&] { return convolution_shape(lhs.shape, rhs.shape, c); });
  expect_result_type(op, 0, result_tensor(op, 0).dtype, shape);
}

// convolution_types has checked the operands, the attributes and the result shape.
OpFn build_convolution(const Op& op, const Planning&) {
  ConvConfig c = convolution_config(op);
  check_precision_config(op);
  // Fills the window's defaults; what it checks, convolution_types has.
  convolution_shape(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape, c);
  // The operands are converted to the result's element type (i8 x i8 -> i32), as dot_general
  // does.
  const DType result = result_tensor(op, 0).dtype;
  return tensor_fn(
      [c, result](const Values& a) { return convolution(a[0].get(), a[1].get(), c, result); });
}

}  // namespace ndbuf::program
