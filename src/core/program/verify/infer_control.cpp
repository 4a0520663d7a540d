// Type rules of the ops whose results are declared rather than inferred: func.call (the
// callee's signature), while / if / case (their regions' signatures), map, custom_call, the
// check dialect and return (checked by the op or function that owns its region).
#include "program/exec/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

void call_types(const Op& op, const Module& module) {
  const Attribute& callee = required_attr(op, "callee");
  const Function* fn = module.find(callee.text);
  if (fn == nullptr || !fn->has_body) {
    op_error(op, "calls '@" + callee.text + "', which is not defined");
  }
  if (fn->body.arg_types != op.operand_types || fn->result_types != op.result_types) {
    op_error(op, "type (" + types_to_string(op.operand_types) + ") -> (" +
                     types_to_string(op.result_types) + ") does not match @" + fn->name + "'s (" +
                     types_to_string(fn->body.arg_types) + ") -> (" +
                     types_to_string(fn->result_types) + ")");
  }
}

// The loop state keeps its types: cond and body take it, body returns it, cond returns i1.
void while_types(const Op& op, const Module&) {
  if (op.regions.size() != 2) op_error(op, "needs a cond and a body region");
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
  for (const Region& r : op.regions) expect_region_args(op, r, op.operand_types);
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_returns(op, op.regions[1], op.operand_types);
}

// Every branch takes nothing and returns the op's result types.
void expect_branches(const Op& op) {
  for (const Region& r : op.regions) {
    expect_region_args(op, r, {});
    expect_region_returns(op, r, op.result_types);
  }
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

void case_types(const Op& op, const Module&) {
  if (op.regions.empty() || op.operands.size() != 1) op_error(op, "needs an index and regions");
  const Type& index = operand_tensor(op, 0);
  if (!index.shape.empty() || index.dtype != DType::kI32) op_error(op, "index must be tensor<i32>");
  expect_branches(op);
}

// The body maps one 0-d element per operand to one of the result's element type.
void map_types(const Op& op, const Module&) {
  if (op.regions.size() != 1 || op.operands.empty() || op.result_types.size() != 1) {
    op_error(op, "needs operands, one region and one result");
  }
  const Type& result = result_tensor(op, 0);
  std::vector<Type> scalars;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    if (t.shape != result.shape) op_error(op, "operands must all have the result's shape");
    scalars.push_back(Type::tensor(t.dtype, {}));
  }
  // The spec maps every axis (dimensions = [0, ..., rank - 1]); nothing else is defined.
  std::vector<int64_t> all(result.shape.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
  if (attr_ints_or(op, "dimensions", all) != all) {
    op_error(op,
             "dimensions must list the result's " + std::to_string(all.size()) + " axes in order");
  }
  const Region& region = op.regions[0];
  if (region.arg_types != scalars) op_error(op, "region must take one 0-d tensor per operand");
  if (region.ops.back().operand_types != std::vector<Type>{Type::tensor(result.dtype, {})}) {
    op_error(op, "region must return one 0-d tensor of the result's element type");
  }
}

// The target decides its result types: the registry checks the op's operands, results and
// attributes against the target when the op is planned (program/custom), so nothing is
// determined here.
void custom_call_types(const Op&, const Module&) {}

// A return's operands are checked by the op or function that owns its region.
void return_types(const Op&, const Module&) {}

void check_pair_types(const Op& op, const Module&) {
  if (op.operands.size() != 2 || !op.result_types.empty()) {
    op_error(op, "takes 2 operand(s) and gives no result");
  }
  const Type& actual = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != actual) op_error(op, "operands must have the same type");
}

void check_const_types(const Op& op, const Module&) {
  if (op.operands.size() != 1 || !op.result_types.empty()) {
    op_error(op, "takes 1 operand(s) and gives no result");
  }
  const Type& actual = operand_tensor(op, 0);
  const Attribute& expected = required_attr(op, "expected");
  if (!expected.dense || expected.type != actual) {
    op_error(op, "expected value must have the operand's type");
  }
}

}  // namespace

std::vector<TypeRuleEntry> control_type_rules() {
  return {
      {"return", return_types},
      {"func.call", call_types},
      {"stablehlo.while", while_types},
      {"stablehlo.if", if_types},
      {"stablehlo.case", case_types},
      {"stablehlo.map", map_types},
      {"stablehlo.custom_call", custom_call_types},
      {"check.expect_eq", check_pair_types},
      {"check.expect_eq_const", check_const_types},
      {"check.expect_almost_eq", check_pair_types},
      {"check.expect_almost_eq_const", check_const_types},
      {"check.expect_close", check_pair_types},
  };
}

}  // namespace ndbuf::program
