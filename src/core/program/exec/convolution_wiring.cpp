// The builder of stablehlo.convolution over kernels/convolution.hpp: the attributes decoded
// (convolution_attrs.hpp), precision config checked, the result type inferred and checked at
// compile time.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/convolution_attrs.hpp"
#include "program/kernels/convolution.hpp"

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

OpFn build_convolution(const Op& op, const Planning&) {
  ConvConfig c = convolution_config(op);
  const Type& lhs = operand_tensor(op, 0);
  const Type& rhs = operand_tensor(op, 1);
  check_precision_config(op);
  const Shape shape = at_op(op, [&] { return convolution_shape(lhs.shape, rhs.shape, c); });
  // The result's element type may differ from the operands' (JAX's preferred_element_type,
  // i8 x i8 -> i32): the operands are converted to it, as dot_general does.
  const DType result = result_tensor(op, 0).dtype;
  expect_result_type(op, 0, result, shape);
  return tensor_fn(
      [c, result](const Values& a) { return convolution(a[0].get(), a[1].get(), c, result); });
}

}  // namespace ndbuf::program
