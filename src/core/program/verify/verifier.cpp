// Module-level checks, then each op's type rule (type_rules.hpp).
#include "program/verify/verifier.hpp"

#include "ndbuf/memory/parallel.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

void verify_operands(const Function& fn, const Op& op) {
  if (op.operands.size() != op.operand_types.size()) {
    fail_at(op.loc, quote_text(op.name) + " has " + std::to_string(op.operands.size()) +
                        " operands but its type lists " + std::to_string(op.operand_types.size()));
  }
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& actual = fn.value_types[op.operands[k]];
    if (actual != op.operand_types[k]) {
      fail_at(op.loc, "operand " + std::to_string(k + 1) + " of " + quote_text(op.name) +
                          " has type " + type_to_string(actual) + " but the op's type says " +
                          type_to_string(op.operand_types[k]));
    }
  }
}

// A call names a function with a body (checked here rather than when the call is planned,
// so that the callee's name, which is program text, is quoted cut to length).
void verify_call(const Module& module, const Op& op) {
  if (op.id != OpId::kCall) return;
  const Attribute* callee = find_attr(op.attrs, "callee");
  if (callee == nullptr) return;  // the planner reports the missing attribute
  const Function* fn = module.find(callee->text);
  if (fn == nullptr || !fn->has_body) {
    fail_at(op.loc,
            "'func.call' calls " + quote_text("@" + callee->text) + ", which is not defined");
  }
}

const Type* program_only_type(const std::vector<Type>& types) {
  for (const Type& t : types) {
    if (t.is_tensor() && is_program_only(t.dtype)) return &t;
    if (const Type* inner = program_only_type(t.elements)) return inner;
  }
  return nullptr;
}

// The program-only small floats (f8E4M3FNUZ, f6E2M3FN, ...) live in constants, convert and
// the interpreter's check ops; every other op is refused here, before any kernel sees them.
void verify_program_only_types(const Op& op) {
  static constexpr OpId kAllowed[] = {OpId::kConstant,
                                      OpId::kConvert,
                                      OpId::kReturn,
                                      OpId::kCheckExpectEq,
                                      OpId::kCheckExpectEqConst,
                                      OpId::kCheckExpectAlmostEq,
                                      OpId::kCheckExpectAlmostEqConst};
  const Type* t = program_only_type(op.operand_types);
  if (t == nullptr) t = program_only_type(op.result_types);
  if (t == nullptr) return;
  for (const OpId id : kAllowed) {
    if (op.id == id) return;
  }
  fail_at(op.loc, "element type " + element_type_name(t->dtype) +
                      " is not supported by this runtime in " + quote_text(op.name) +
                      " (only in constants and convert)");
}

// Iterative over nested regions (an explicit stack), so depth costs no native stack.
void verify_body(const Module& module, const Function& fn) {
  std::vector<const Region*> pending{&fn.body};
  while (!pending.empty()) {
    const Region& region = *pending.back();
    pending.pop_back();
    if (region.ops.empty() || region.ops.back().id != OpId::kReturn) {
      fail_at(region.loc, "region does not end with a return");
    }
    for (size_t k = 0; k < region.ops.size(); ++k) {
      const Op& op = region.ops[k];
      if ((k & 0x3FFF) == 0x3FFF) check_interrupt();
      if (op.id == OpId::kReturn && k + 1 != region.ops.size()) {
        fail_at(op.loc, "a return must be the last op of its region");
      }
      verify_operands(fn, op);
      verify_program_only_types(op);
      verify_call(module, op);
      for (const Region& nested : op.regions) pending.push_back(&nested);
    }
  }
  const Op& ret = fn.body.ops.back();
  if (ret.operand_types != fn.result_types) {
    fail_at(ret.loc, quote_text("@" + fn.name, "", "") + " returns (" +
                         types_to_string(ret.operand_types) + ") but is declared to return (" +
                         types_to_string(fn.result_types) + ")");
  }
}

void verify_main(const Module& module) {
  const Function* main = module.find("main");
  if (main == nullptr) {
    const Location loc = module.functions.empty() ? Location{1, 1} : module.functions[0].loc;
    fail_at(loc, "the program has no @main function");
  }
  if (!main->has_body) fail_at(main->loc, "@main has no body");
  for (size_t k = 0; k < main->body.arg_types.size(); ++k) {
    if (!main->body.arg_types[k].is_tensor()) fail_at(main->loc, "@main arguments must be tensors");
    const auto& alias = main->aliasing_output[k];
    if (alias && (*alias < 0 || *alias >= static_cast<int64_t>(main->result_types.size()) ||
                  main->result_types[*alias] != main->body.arg_types[k])) {
      fail_at(main->loc, "argument " + std::to_string(k + 1) +
                             " of @main names tf.aliasing_output " + std::to_string(*alias) +
                             ", which is not a result of the same type");
    }
  }
  for (const Type& t : main->result_types) {
    if (!t.is_tensor()) fail_at(main->loc, "@main results must be tensors");
  }
  const Type* internal = program_only_type(main->body.arg_types);
  if (internal == nullptr) internal = program_only_type(main->result_types);
  if (internal != nullptr) {
    fail_at(main->loc, "@main cannot take or return element type " +
                           element_type_name(internal->dtype) +
                           ", which is not a buffer dtype (convert it inside the program)");
  }
}

// Runs the type rules in the order the planner visits the ops (functions in order, an op's
// regions before the op), iteratively, and stops at the first op without a rule: the planner
// reports that op as one this runtime does not run, and that error comes first, as it would
// without these rules. Returns false when it stopped there.
bool check_function_types(const Module& module, const Function& fn) {
  struct Frame {
    const Region* region;
    size_t op = 0;
    size_t nested = 0;  // regions of the current op already walked
  };
  std::vector<Frame> stack{{&fn.body}};
  size_t visited = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.op == top.region->ops.size()) {
      stack.pop_back();
      continue;
    }
    const Op& op = top.region->ops[top.op];
    if (top.nested < op.regions.size()) {
      const Region* nested = &op.regions[top.nested++];
      stack.push_back({nested});  // `top` dangles from here
      continue;
    }
    if ((++visited & 0x3FFF) == 0) check_interrupt();
    const TypeRule rule = find_type_rule(op.id);
    if (rule == nullptr) return false;
    rule(op, module);
    ++top.op;
    top.nested = 0;
  }
  return true;
}

}  // namespace

void verify_module(const Module& module, bool require_main) {
  for (const Function& fn : module.functions) {
    if (fn.has_body) verify_body(module, fn);
  }
  if (require_main) verify_main(module);
  for (const Function& fn : module.functions) {
    if (fn.has_body && !check_function_types(module, fn)) return;
  }
}

}  // namespace ndbuf::program
