// Counting the reads of values, which the passes consult before they move, merge or remove an
// op (a value read once can change with its one reader).
#pragma once

#include <vector>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Adds to uses[v] one for each operand of `region`'s ops (nested regions included) that reads v.
void count_uses(const Region& region, std::vector<int>& uses);
// How many operands of `fn` read each of its values.
std::vector<int> value_uses(const Function& fn);

}  // namespace ndbuf::program
