// func.call and return. The call's type rule checks its types against the callee's
// signature; its builder binds the callee's plan. A return runs in the interpreter itself (no
// builder); its operands are checked by the op or function that owns its region.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// The verifier's module checks (verify_call) have found the callee's body, for every call,
// before any type rule runs.
void call_types(const Op& op, const Module& module) {
  const Function* fn = module.find(required_attr(op, "callee").text);
  if (fn->body.arg_types != op.operand_types || fn->result_types != op.result_types) {
    op_error(op, "type (" + types_to_string(op.operand_types) + ") -> (" +
                     types_to_string(op.result_types) + ") does not match @" + fn->name + "'s (" +
                     types_to_string(fn->body.arg_types) + ") -> (" +
                     types_to_string(fn->result_types) + ")");
  }
}

// call_types has checked that the callee is defined and has the call's signature.
OpFn build_call(const Op& op, const Planning& planning) {
  const Function* fn = planning.module.find(required_attr(op, "callee").text);
  const FunctionPlan* plan = &planning.plan.function(*fn);
  return [plan](Interpreter& in, const Values& a) { return in.call(*plan, a); };
}

void return_types(const Op&, const Module&) {}

}  // namespace ndbuf::program
