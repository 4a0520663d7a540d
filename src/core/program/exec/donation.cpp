// Donation planning (donation.hpp).
#include "program/exec/donation.hpp"

#include <algorithm>

#include "program/exec/fusion.hpp"

namespace ndbuf::program {
namespace {

bool contains(const std::vector<int>& ids, int id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The op of `region` defining `value` (nullptr for an argument or a value it does not define).
const Op* defining_op(const Region& region, int value) {
  for (const Op& op : region.ops) {
    if (!op.absorbed && contains(op.results, value)) return &op;
  }
  return nullptr;
}

const Op* writer_of(const Function& main, size_t k, const Op& ret) {
  const auto& alias = main.aliasing_output[k];
  if (!alias || *alias < 0 || static_cast<size_t>(*alias) >= ret.operands.size()) return nullptr;
  const int argument = main.body.args[k];
  const Op* op = defining_op(main.body, ret.operands[static_cast<size_t>(*alias)]);
  if (op == nullptr || op->results.size() != 1) return nullptr;
  if (op->name != "fusion" && !is_elementwise_name(op->name)) return nullptr;
  if (!contains(op->operands, argument) || !contains(op->release, argument)) return nullptr;
  if (op->result_types[0] != main.body.arg_types[k]) return nullptr;
  return op;
}

}  // namespace

std::vector<const Op*> in_place_writers(const Function& main) {
  std::vector<const Op*> writers(main.body.args.size(), nullptr);
  if (main.body.ops.empty() || main.body.ops.back().name != "return") return writers;
  const Op& ret = main.body.ops.back();
  for (size_t k = 0; k < writers.size(); ++k) {
    const Op* op = writer_of(main, k, ret);
    // One argument per op: a second argument aliased to the same result keeps its memory.
    if (op != nullptr && std::find(writers.begin(), writers.end(), op) == writers.end()) {
      writers[k] = op;
    }
  }
  return writers;
}

}  // namespace ndbuf::program
