// Donation planning (donation.hpp).
#include "program/exec/donation.hpp"

#include <algorithm>

#include "program/exec/fusion.hpp"

namespace ndbuf::program {
namespace {

bool contains(const std::vector<int>& ids, int id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// The step of `body` defining `value` (nullptr for an argument or a value it does not define).
Step* defining_step(RegionPlan& body, int value) {
  for (Step& step : body.steps) {
    if (contains(step.results, value)) return &step;
  }
  return nullptr;
}

Step* writer_of(const Function& main, RegionPlan& body, size_t k) {
  const auto& alias = main.aliasing_output[k];
  if (!alias || *alias < 0 || static_cast<size_t>(*alias) >= body.returns.size()) return nullptr;
  const int argument = main.body.args[k];
  Step* step = defining_step(body, body.returns[static_cast<size_t>(*alias)]);
  if (step == nullptr || step->results.size() != 1 || step->row_fused) return nullptr;
  if (!step->fused && !is_fusible_op(step->op->id)) return nullptr;
  if (!contains(step->operands, argument) || !contains(step->release, argument)) return nullptr;
  if (step->op->result_types[0] != main.body.arg_types[k]) return nullptr;
  return step;
}

}  // namespace

void plan_in_place_writes(const Function& main, RegionPlan& body) {
  if (main.body.ops.empty() || main.body.ops.back().id != OpId::kReturn) return;
  for (size_t k = 0; k < main.body.args.size(); ++k) {
    Step* step = writer_of(main, body, k);
    // One argument per step: a second argument aliased to the same result keeps its memory.
    if (step != nullptr && step->in_place_argument < 0) {
      step->in_place_argument = static_cast<int>(k);
    }
  }
}

}  // namespace ndbuf::program
