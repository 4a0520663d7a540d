// stablehlo.compare: the type rule checks the operands, the direction and the compare type
// (compare_type_for: the dtype's default when absent); the builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void compare_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& lhs = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != lhs) op_error(op, "operands must have the same type");
  const std::string dir_name = attr_word(op, "comparison_direction");
  if (!compare_direction_named(dir_name)) {
    op_error(op, "has an unknown comparison direction '" + dir_name + "'");
  }
  const std::string type_name = attr_word(op, "compare_type");
  const auto type = compare_type_for(type_name, lhs.dtype);
  if (!type) op_error(op, "has an unknown compare type '" + type_name + "'");
  at_op(op, [&] {
    check_compare_type(*type, lhs.dtype);
    return 0;
  });
  expect_result_type(op, 0, DType::kPred, lhs.shape);
}

// compare_types has checked the operands, the direction and the compare type.
OpFn build_compare(const Op& op, const Planning&) {
  const CompareDirection d = *compare_direction_named(attr_word(op, "comparison_direction"));
  const CompareType t =
      *compare_type_for(attr_word(op, "compare_type"), operand_tensor(op, 0).dtype);
  return offered_memory_fn([d, t](const Values& a, ResultMemory& memory) {
    return compare(d, t, a[0].get(), a[1].get(), memory);
  });
}

}  // namespace ndbuf::program
