// The control-flow ops with regions: while, if, case. The type rules check the regions'
// signatures against the operands and results; the builders bind the regions' plans.
#include "ndbuf/memory/storage_pool.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

bool is_true(const Value& v) {
  const Tensor& t = v.get();
  return *static_cast<const uint8_t*>(t.data()) != 0;
}

// Every branch takes nothing and returns the op's result types.
void expect_branches(const Op& op) {
  for (const Region& r : op.regions) {
    expect_region_args(op, r, {});
    expect_region_returns(op, r, op.result_types);
  }
}

}  // namespace

// The loop state keeps its types: cond and body take it, body returns it, cond returns i1.
void while_types(const Op& op, const Module&) {
  if (op.regions.size() != 2) op_error(op, "needs a cond and a body region");
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
  for (const Region& r : op.regions) expect_region_args(op, r, op.operand_types);
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_returns(op, op.regions[1], op.operand_types);
}

// while_types has checked both regions' signatures.
OpFn build_while(const Op& op, const Planning& planning) {
  const RegionPlan* cond = &planning.plan.region(op.regions[0]);
  const RegionPlan* body = &planning.plan.region(op.regions[1]);
  return [cond, body](Interpreter& in, const Values& a) {
    // The state is moved into the body, so a value it carries is held by the body alone and
    // can be updated in place (a scan's dynamic_update_slice into its output).
    Values state = a;
    // Each iteration's results take the storages of the one before (a steady-state
    // iteration allocates no memory).
    const PoolScope pooled(*in.context().pool);
    while (is_true(in.run_region(*cond, state)[0])) in.run_region_on(*body, state);
    return state;
  };
}

void if_types(const Op& op, const Module&) {
  if (op.regions.size() != 2 || op.operands.size() != 1) {
    op_error(op, "needs a predicate and two regions");
  }
  if (op.operand_types[0] != Type::tensor(DType::kPred, {})) {
    op_error(op, "predicate must be tensor<i1>");
  }
  expect_branches(op);
}

// if_types has checked the predicate and both branches.
OpFn build_if(const Op& op, const Planning& planning) {
  const RegionPlan* then_region = &planning.plan.region(op.regions[0]);
  const RegionPlan* else_region = &planning.plan.region(op.regions[1]);
  return [then_region, else_region](Interpreter& in, const Values& a) {
    return in.run_region(is_true(a[0]) ? *then_region : *else_region, {});
  };
}

void case_types(const Op& op, const Module&) {
  if (op.regions.empty() || op.operands.size() != 1) op_error(op, "needs an index and regions");
  const Type& index = operand_tensor(op, 0);
  if (!index.shape.empty() || index.dtype != DType::kI32) op_error(op, "index must be tensor<i32>");
  expect_branches(op);
}

// case_types has checked the index and the branches.
OpFn build_case(const Op& op, const Planning& planning) {
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
