// Type rules of the ops: each checks, before planning, an op's operands and attributes against
// the spec's constraints and its declared result types against the types they infer. Errors
// carry the op's line:column and name the op; a declared result that differs from the inferred
// one reads "result type DECLARED should be INFERRED". Each rule lives in its op's file under
// program/ops/, next to the op's builder, and is named by the op's row in ops.def.
#pragma once

#include <string>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Throws on the first violation; returns when the op is well typed. The rule of an op whose
// result element type is the program's choice (convert, dot_general, convolution) checks the
// shape and what else the operands determine. The builders run after every rule has passed and
// do not check again what their rule checked.
using TypeRule = void (*)(const Op& op, const Module& module);

// Every rule the op table names.
#define NDBUF_OP(name, id, kind, builder, rule, pretty, fusible, attrs) \
  void rule(const Op& op, const Module& module);
#include "program/registry/ops.def"
void unary_types(const Op& op, const Module& module);
void binary_types(const Op& op, const Module& module);
void broadcast_binary_types(const Op& op, const Module& module);
void return_types(const Op& op, const Module& module);

// The rule of op `id`, read from its row, or nullptr for OpId::kUnknown (an op this runtime
// does not run: the planner names it).
TypeRule find_type_rule(OpId id);

}  // namespace ndbuf::program
