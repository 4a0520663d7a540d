// stablehlo.constant: its dense value, made when the program is parsed. The type rule checks
// the value against the result type; the builder hands the value out on every run.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void constant_types(const Op& op, const Module&) {
  expect_counts(op, 0, 1);
  const Attribute& value = required_attr(op, "value");
  if (value.kind != Attribute::Kind::kDense || !value.dense) op_error(op, "needs a dense value");
  if (value.type != op.result_types[0]) {
    op_error(op, "value of type " + type_to_string(value.type) + " does not match result type " +
                     type_to_string(op.result_types[0]));
  }
}

// constant_types has checked that the value is dense and of the result type.
OpFn build_constant(const Op& op, const Planning&) {
  const Tensor tensor = *required_attr(op, "value").dense;
  return [tensor](Interpreter&, const Values&) -> Values { return one_value(tensor); };
}

}  // namespace ndbuf::program
