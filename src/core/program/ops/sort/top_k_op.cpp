// chlo.top_k over ops/sort/top_k.hpp: the k largest elements along the last axis and their
// indices. The type rule infers both results' types; the builder binds the kernel.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/sort/top_k.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void top_k_types(const Op& op, const Module&) {
  expect_counts(op, 1, 2);
  const Type& in = operand_tensor(op, 0);
  const int64_t k = attr_int(op, "k");
  if (in.shape.empty() || k < 0 || k > in.shape.back()) {
    op_error(op, "k = " + std::to_string(k) + " does not fit the last axis");
  }
  const Shape shape = at_op(op, [&] { return top_k_shape(in.shape, in.dtype, k); });
  expect_result_type(op, 0, in.dtype, shape);
  expect_result_type(op, 1, DType::kI32, shape);
}

// top_k_types has checked k against the operand.
OpFn build_top_k(const Op& op, const Planning&) {
  const int64_t k = attr_int(op, "k");
  return [k](Interpreter&, const Values& a) { return values_of(top_k(a[0].get(), k)); };
}

}  // namespace ndbuf::program
