// Def-use edges of one region's ops, for the fusion passes: which op defines a value and which
// ops read it (uses inside an op's nested regions count as the op's own).
#pragma once

#include <unordered_map>
#include <vector>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// Every value `op` reads, its nested regions' reads included, appended to `uses`.
void collect_uses(const Op& op, std::vector<int>& uses);

struct RegionGraph {
  std::unordered_map<int, int> defined_by;          // value -> index of its op
  std::unordered_map<int, std::vector<int>> users;  // value -> indices of the ops reading it
};

RegionGraph region_graph(const Region& region);

// The index of the op defining `value` in the graph's region, or -1 for a value defined
// outside it (an argument).
int defining_op(const RegionGraph& graph, int value);

// The indices of the ops reading `value` (empty when none does).
const std::vector<int>& users_of(const RegionGraph& graph, int value);

}  // namespace ndbuf::program
