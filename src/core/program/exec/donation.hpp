// Donation planning: which op may write a donated argument's aliased result straight into the
// argument's memory (execute() in ndbuf/program/program.hpp decides at run time whether it
// does).
#pragma once

#include <vector>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Per argument of `main` (planned): the op that may write the result the argument is aliased
// to (tf.aliasing_output) into the argument's memory, or nullptr. That op computes the value
// returned at the aliased position, reads the argument for the last time, is element-wise or
// a fused group (so each result element depends only on the inputs' elements at the same
// position), and has the argument's type as its result type. An argument returned as it is
// needs no op: its memory is the result when the run holds it alone.
std::vector<const Op*> in_place_writers(const Function& main);

}  // namespace ndbuf::program
