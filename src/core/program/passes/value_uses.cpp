// Counting the reads of values (value_uses.hpp).
#include "program/passes/value_uses.hpp"

namespace ndbuf::program {

void count_uses(const Region& region, std::vector<int>& uses) {
  for (const Op& op : region.ops) {
    for (const int operand : op.operands) ++uses[static_cast<size_t>(operand)];
    for (const Region& nested : op.regions) count_uses(nested, uses);
  }
}

std::vector<int> value_uses(const Function& fn) {
  std::vector<int> uses(static_cast<size_t>(fn.num_values), 0);
  count_uses(fn.body, uses);
  return uses;
}

}  // namespace ndbuf::program
