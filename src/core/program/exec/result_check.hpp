// The interpreter's defence in depth: what an op's run function returned must be what the op's
// declared result types say, so a builder that missed a check fails with an error instead of
// letting a tensor of the wrong size reach the ops after it.
#pragma once

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Throws an InvalidArgument error "line:column: internal error: ..." (a bug in the runtime, not
// in the program) unless `results` has one value per declared result, each a tensor of exactly
// the declared dtype and shape (tuples element by element). O(rank) per result.
void check_op_results(const Op& op, const Values& results);

}  // namespace ndbuf::program
