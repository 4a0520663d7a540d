// chlo.constant_like: a scalar attribute splat to the operand's type. The type rule checks that
// the value is a scalar of the operand's element type; the builder makes the splat once.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

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

// `value`, one of the forms is_scalar_of() accepts, as a 0-d tensor of `dtype`.
Tensor scalar_value(const Attribute& value, DType dtype) {
  switch (value.kind) {
    case Attribute::Kind::kDense:
      return convert(*value.dense, dtype);  // a fresh 0-d copy (convert() to the same dtype)
    case Attribute::Kind::kInt: {
      Tensor wide = Tensor::allocate(DType::kI64, {}, Order::kRowMajor);
      *static_cast<int64_t*>(wide.data()) = value.integer;
      return convert(wide, dtype);
    }
    case Attribute::Kind::kFloat: {
      Tensor wide = Tensor::allocate(DType::kF64, {}, Order::kRowMajor);
      *static_cast<double*>(wide.data()) = value.number;
      return convert(wide, dtype);
    }
    default: {
      Tensor flag = Tensor::allocate(DType::kPred, {}, Order::kRowMajor);
      *static_cast<uint8_t*>(flag.data()) = value.flag ? 1 : 0;
      return flag;
    }
  }
}

}  // namespace

void constant_like_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& like = operand_tensor(op, 0);
  expect_result_type(op, 0, like.dtype, like.shape);
  if (!is_scalar_of(required_attr(op, "value"), like.dtype)) {
    op_error(op, "value must be a scalar of the operand's element type " +
                     element_type_name(like.dtype));
  }
}

// constant_like_types has checked the value against the operand's element type.
OpFn build_constant_like(const Op& op, const Planning&) {
  const Type& like = operand_tensor(op, 0);
  const Tensor scalar = scalar_value(required_attr(op, "value"), like.dtype);
  const Shape shape = like.shape;
  const Tensor splat(scalar.storage(), scalar.dtype(), shape, Strides(shape.size(), 0),
                     scalar.offset());
  return [splat](Interpreter&, const Values&) -> Values { return one_value(splat); };
}

}  // namespace ndbuf::program
