// Builders of the control-flow ops: func.call, while, if, case, map.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"

namespace ndbuf::program {
namespace {

bool is_true(const Value& v) {
  const Tensor& t = v.get();
  return *static_cast<const uint8_t*>(t.data()) != 0;
}

}  // namespace

OpFn build_call(const Op& op, const Planning& planning) {
  const Attribute& callee = required_attr(op, "callee");
  const Function* fn = planning.module.find(callee.text);
  if (fn == nullptr || !fn->has_body)
    op_error(op, "calls '@" + callee.text + "', which is not defined");
  if (fn->body.arg_types != op.operand_types || fn->result_types != op.result_types) {
    op_error(op, "type (" + types_to_string(op.operand_types) + ") -> (" +
                     types_to_string(op.result_types) + ") does not match @" + fn->name + "'s (" +
                     types_to_string(fn->body.arg_types) + ") -> (" +
                     types_to_string(fn->result_types) + ")");
  }
  const FunctionPlan* plan = &planning.plan.function(*fn);
  return [plan](Interpreter& in, const Values& a) { return in.call(*plan, a); };
}

OpFn build_while(const Op& op, const Planning& planning) {
  if (op.regions.size() != 2) op_error(op, "needs a cond and a body region");
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
  for (const Region& r : op.regions) expect_region_args(op, r, op.operand_types);
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_returns(op, op.regions[1], op.operand_types);
  const RegionPlan* cond = &planning.plan.region(op.regions[0]);
  const RegionPlan* body = &planning.plan.region(op.regions[1]);
  return [cond, body](Interpreter& in, const Values& a) {
    // The state is moved into the body, so a value it carries is held by the body alone and
    // can be updated in place (a scan's dynamic_update_slice into its output).
    Values state = a;
    while (is_true(in.run_region(*cond, state)[0])) state = in.run_region(*body, std::move(state));
    return state;
  };
}

OpFn build_if(const Op& op, const Planning& planning) {
  if (op.regions.size() != 2 || op.operands.size() != 1)
    op_error(op, "needs a predicate and two regions");
  if (op.operand_types[0] != Type::tensor(DType::kPred, {}))
    op_error(op, "predicate must be tensor<i1>");
  for (const Region& r : op.regions) {
    expect_region_args(op, r, {});
    expect_region_returns(op, r, op.result_types);
  }
  const RegionPlan* then_region = &planning.plan.region(op.regions[0]);
  const RegionPlan* else_region = &planning.plan.region(op.regions[1]);
  return [then_region, else_region](Interpreter& in, const Values& a) {
    return in.run_region(is_true(a[0]) ? *then_region : *else_region, {});
  };
}

OpFn build_case(const Op& op, const Planning& planning) {
  if (op.regions.empty() || op.operands.size() != 1) op_error(op, "needs an index and regions");
  const Type& index = operand_tensor(op, 0);
  if (!index.shape.empty() || index.dtype != DType::kI32) op_error(op, "index must be tensor<i32>");
  for (const Region& r : op.regions) {
    expect_region_args(op, r, {});
    expect_region_returns(op, r, op.result_types);
  }
  std::vector<const RegionPlan*> regions;
  for (const Region& r : op.regions) regions.push_back(&planning.plan.region(r));
  return [regions](Interpreter& in, const Values& a) {
    int64_t k = scalar_index(a[0].get());
    // Out-of-range indices select the last branch (the spec's default).
    if (k < 0 || k >= static_cast<int64_t>(regions.size()))
      k = static_cast<int64_t>(regions.size()) - 1;
    return in.run_region(*regions[static_cast<size_t>(k)], {});
  };
}

}  // namespace ndbuf::program
