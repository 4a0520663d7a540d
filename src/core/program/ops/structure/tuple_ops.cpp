// stablehlo.tuple and get_tuple_element: tuple values hold their elements' values. The type
// rules check the tuple's element types and the index; the builders pack and unpack.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void tuple_types(const Op& op, const Module&) {
  if (op.result_types.size() != 1 || op.result_types[0].kind != Type::Kind::kTuple ||
      op.result_types[0].elements != op.operand_types) {
    op_error(op, "result must be the tuple of the operand types");
  }
}

OpFn build_tuple_op(const Op&, const Planning&) {
  return [](Interpreter&, const Values& a) -> Values {
    Value v;
    v.tuple = std::make_shared<const Values>(a);
    return {v};
  };
}

void get_tuple_element_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& t = op.operand_types[0];
  const int64_t index = attr_int(op, "index");
  if (t.kind != Type::Kind::kTuple || index < 0 ||
      index >= static_cast<int64_t>(t.elements.size())) {
    op_error(op, "index " + std::to_string(index) + " is outside the tuple " + type_to_string(t));
  }
  if (t.elements[index] != op.result_types[0]) {
    op_error(op, "result type does not match the tuple element");
  }
}

// get_tuple_element_types has checked the index against the tuple type.
OpFn build_get_tuple_element(const Op& op, const Planning&) {
  const int64_t index = attr_int(op, "index");
  return [index](Interpreter&, const Values& a) -> Values {
    if (!a[0].tuple) fail(ErrorKind::kInvalidArgument, "get_tuple_element of a non-tuple value");
    return {(*a[0].tuple)[index]};
  };
}

}  // namespace ndbuf::program
