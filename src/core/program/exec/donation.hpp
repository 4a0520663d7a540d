// Donation planning: which step may write a donated argument's aliased result straight into the
// argument's memory (execute() in ndbuf/program/program.hpp decides at run time whether it
// does).
#pragma once

#include <vector>

#include "program/exec/plan.hpp"

namespace ndbuf::program {

// For each argument of `main` (planned: `body` is its body's plan), marks the step that may
// write the result the argument is aliased to (tf.aliasing_output) into the argument's memory
// (Step::in_place_argument). That step computes the value returned at the aliased position,
// reads the argument for the last time, is element-wise or a fused group (so each result
// element depends only on the inputs' elements at the same position), and has the argument's
// type as its result type; a step takes at most one argument's memory. An argument returned as
// it is needs no step: its memory is the result when the run holds it alone.
void plan_in_place_writes(const Function& main, RegionPlan& body);

}  // namespace ndbuf::program
