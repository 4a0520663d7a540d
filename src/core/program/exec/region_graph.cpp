// Def-use edges of a region (region_graph.hpp).
#include "program/exec/region_graph.hpp"

namespace ndbuf::program {

void collect_uses(const Op& op, std::vector<int>& uses) {
  uses.insert(uses.end(), op.operands.begin(), op.operands.end());
  for (const Region& nested : op.regions) {
    for (const Op& inner : nested.ops) collect_uses(inner, uses);
  }
}

RegionGraph region_graph(const Region& region) {
  RegionGraph graph;
  std::vector<int> uses;
  for (size_t k = 0; k < region.ops.size(); ++k) {
    for (int id : region.ops[k].results) graph.defined_by[id] = static_cast<int>(k);
    uses.clear();
    collect_uses(region.ops[k], uses);
    for (int id : uses) {
      auto& list = graph.users[id];
      if (list.empty() || list.back() != static_cast<int>(k)) list.push_back(static_cast<int>(k));
    }
  }
  return graph;
}

int defining_op(const RegionGraph& graph, int value) {
  auto it = graph.defined_by.find(value);
  return it == graph.defined_by.end() ? -1 : it->second;
}

const std::vector<int>& users_of(const RegionGraph& graph, int value) {
  static const std::vector<int> kNone;
  auto it = graph.users.find(value);
  return it == graph.users.end() ? kNone : it->second;
}

}  // namespace ndbuf::program
