// replica_id and partition_id (this process's place in the grid, as a 0-d ui32) and
// after_all (joins tokens; runs nothing: the steps of a process already run in program order).
#include <cstdint>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/collective/collective.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

void expect_id_result(const Op& op) {
  expect_counts(op, 0, 1);
  expect_result_type(op, 0, DType::kU32, {});
}

Values id_value(uint32_t id) {
  Tensor t = Tensor::allocate(DType::kU32, {}, Order::kRowMajor);
  *static_cast<uint32_t*>(t.data()) = id;
  return one_value(std::move(t));
}

}  // namespace

void replica_id_types(const Op& op, const Module&) { expect_id_result(op); }
void partition_id_types(const Op& op, const Module&) { expect_id_result(op); }

OpFn build_replica_id(const Op&, const Planning&) {
  return [](Interpreter& in, const Values&) {
    const ExecContext& context = in.context();
    return id_value(static_cast<uint32_t>(grid_of(context).replica_of(context.process)));
  };
}

OpFn build_partition_id(const Op&, const Planning&) {
  return [](Interpreter& in, const Values&) {
    const ExecContext& context = in.context();
    return id_value(static_cast<uint32_t>(grid_of(context).partition_of(context.process)));
  };
}

void after_all_types(const Op& op, const Module&) {
  for (const Type& t : op.operand_types) {
    if (t.kind != Type::Kind::kToken) op_error(op, "operands must be tokens");
  }
  if (op.result_types.size() != 1 || op.result_types[0].kind != Type::Kind::kToken) {
    op_error(op, "must give one token");
  }
}

OpFn build_after_all(const Op&, const Planning&) {
  return [](Interpreter&, const Values&) { return Values(1); };
}

}  // namespace ndbuf::program
