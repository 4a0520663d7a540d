// Type rules of the ops: each checks, before planning, an op's operands and attributes against
// the spec's constraints and its declared result types against the types they infer. Errors
// carry the op's line:column and name the op; a declared result that differs from the inferred
// one reads "result type DECLARED should be INFERRED".
#pragma once

#include <string>
#include <vector>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Throws on the first violation; returns when the op is well typed. The rule of an op whose
// result element type is the program's choice (convert, dot_general, convolution) checks the
// shape and what else the operands determine.
using TypeRule = void (*)(const Op& op, const Module& module);

struct TypeRuleEntry {
  const char* name;
  TypeRule rule;
};

// One table per op family, keyed by the canonical op name.
std::vector<TypeRuleEntry> structure_type_rules();
std::vector<TypeRuleEntry> elementwise_type_rules();
std::vector<TypeRuleEntry> chlo_type_rules();
std::vector<TypeRuleEntry> indexing_type_rules();
std::vector<TypeRuleEntry> reduction_type_rules();
std::vector<TypeRuleEntry> control_type_rules();
std::vector<TypeRuleEntry> convolution_type_rules();
std::vector<TypeRuleEntry> linalg_type_rules();

// The rule of `name`, or nullptr when it has none (an op this runtime does not run: the
// planner names it).
TypeRule find_type_rule(const std::string& name);

}  // namespace ndbuf::program
