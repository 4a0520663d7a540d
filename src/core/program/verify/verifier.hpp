// Verification of a parsed module: @main exists, regions end in a return of the right types,
// every operand's value has the type the op's signature states, then every op's type rule
// (type_rules.hpp): its constraints and its declared result types against the inferred ones.
#pragma once

#include "program/ir/module.hpp"

namespace ndbuf::program {

// `require_main`: the module is a program (its entry point @main takes and returns tensors);
// without it (conformance files) every function is checked but none is special.
void verify_module(const Module& module, bool require_main = true);

}  // namespace ndbuf::program
