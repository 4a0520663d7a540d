// Text -> planned module, the pipeline behind ndbuf::program::compile() (also used directly by
// the conformance runner, whose files have no @main).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ndbuf/program/program.hpp"
#include "program/exec/plan.hpp"
#include "program/ir/module.hpp"
#include "program/passes/canonicalise.hpp"

namespace ndbuf::program {

// A verified module and its plan, made together and read-only from then on. The plan points
// into the module (ops, regions, functions) and run functions point into the plan (the plans
// of the regions and functions they call), so both stay where they were made (behind these
// pointers; moving a PlannedModule moves neither) and the plan goes first.
struct PlannedModule {
  std::unique_ptr<const Module> module;
  std::unique_ptr<const Plan> plan;
  CanonicaliseCounts canonicalised;  // what canonicalisation rewrote (all functions)
};

// What @main compiled to, one step per line (fused steps with the ops they run): its kind, result
// types and sizes, and the program lines it comes from (plan_text.cpp).
std::string plan_text(const PlannedModule& program);

// Parses, verifies and plans (donation's in-place writes of @main included).
PlannedModule compile_module(std::string_view text, bool require_main,
                             const CompileOptions& options = {});

}  // namespace ndbuf::program
