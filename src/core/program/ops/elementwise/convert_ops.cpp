// The element type changes: stablehlo.convert (values), bitcast_convert (bits) and
// reduce_precision (values rounded to a narrower format, kept in their type). The type rules
// check the shapes the widths allow; the builders bind the kernels.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// The result's element type is the program's choice; the shape is the operand's.
void convert_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  expect_result_type(op, 0, result_tensor(op, 0).dtype, x.shape);
}

OpFn build_convert(const Op& op, const Planning&) {
  const DType to = result_tensor(op, 0).dtype;
  return offered_memory_fn(
      [to](const Values& a, ResultMemory& memory) { return convert(a[0].get(), to, memory); });
}

// The result's element type is free; the shape follows from the two widths.
void bitcast_convert_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  const Type& result = result_tensor(op, 0);
  if (const char* why = bitcast_problem(x.dtype, x.shape, result.dtype, result.shape)) {
    op_error(op,
             "cannot turn " + type_to_string(x) + " into " + type_to_string(result) + ": " + why);
  }
}

OpFn build_bitcast_convert(const Op& op, const Planning&) {
  const Type result = result_tensor(op, 0);
  return tensor_fn([result](const Values& a) {
    return bitcast_convert(a[0].get(), result.dtype, result.shape);
  });
}

void reduce_precision_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& x = operand_tensor(op, 0);
  expect_result_type(op, 0, x.dtype, x.shape);
  const int64_t e = attr_int(op, "exponent_bits");
  const int64_t m = attr_int(op, "mantissa_bits");
  if (e < 1 || e > 64 || m < 0 || m > 64) op_error(op, "has an invalid format");
}

// reduce_precision_types has checked the format.
OpFn build_reduce_precision(const Op& op, const Planning&) {
  const auto e = static_cast<int>(attr_int(op, "exponent_bits"));
  const auto m = static_cast<int>(attr_int(op, "mantissa_bits"));
  return offered_memory_fn([e, m](const Values& a, ResultMemory& memory) {
    return reduce_precision(a[0].get(), e, m, memory);
  });
}

}  // namespace ndbuf::program
