// Makes the execution plan (plan.hpp): every op bound to its builder's run function.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/fusion.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

// Every value an op reads, its nested regions included.
void collect_uses(const Op& op, std::vector<int>& uses) {
  uses.insert(uses.end(), op.operands.begin(), op.operands.end());
  for (const Region& nested : op.regions) {
    for (const Op& inner : nested.ops) collect_uses(inner, uses);
  }
}

// Marks, for each value defined in the region, the step after which it is no longer read, so
// the interpreter frees intermediates as soon as possible (peak memory stays near the live
// set). A value the terminator returns is never released.
void plan_releases(const Region& region, RegionPlan& plan) {
  std::unordered_map<int, size_t> last_use;
  std::vector<int> uses;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const Step& step = plan.steps[k];
    uses.assign(step.operands.begin(), step.operands.end());
    for (const Region& nested : step.op->regions) {
      for (const Op& inner : nested.ops) collect_uses(inner, uses);
    }
    for (int id : uses) last_use[id] = k;
  }
  for (int id : plan.returns) last_use[id] = plan.steps.size();
  plan.args_read.clear();
  for (int id : region.args) plan.args_read.push_back(last_use.count(id) > 0);
  std::unordered_map<int, bool> local;
  for (int id : region.args) local[id] = true;
  for (const Op& op : region.ops) {
    for (int id : op.results) local[id] = true;
  }
  for (const auto& [id, k] : last_use) {
    if (local.count(id) > 0 && k < plan.steps.size()) {
      plan.steps[k].release.push_back(id);
      local.erase(id);
    }
  }
  for (const auto& entry : local) plan.exit_release.push_back(entry.first);
  std::sort(plan.exit_release.begin(), plan.exit_release.end());
}

// Steps whose kernels write their result through allocate_result() / take_offered_memory()
// and compute each result element from the operands' elements at the same position (or, for
// dynamic_update_slice, start from a copy of operand 0).
bool takes_operand_memory(const Step& step) {
  if (step.results.size() != 1 || !step.op->result_types[0].is_tensor()) return false;
  return step.fused || is_fusible_op(step.op->id) || step.op->id == OpId::kDynamicUpdateSlice;
}

// Marks, per step, an operand whose memory the step may reuse for its result: a value of the
// region (not an argument of a function, which the caller lends: donation decides those) read
// here for the last time, of the result's type.
void plan_reuse(const Region& region, const Function& fn, bool function_body, RegionPlan& plan) {
  std::unordered_set<int> lent;
  if (function_body) lent.insert(region.args.begin(), region.args.end());
  for (Step& step : plan.steps) {
    if (!takes_operand_memory(step)) continue;
    const Type& result = step.op->result_types[0];
    for (size_t j = 0; j < step.operands.size(); ++j) {
      const int id = step.operands[j];
      const bool released =
          std::find(step.release.begin(), step.release.end(), id) != step.release.end();
      if (!released || lent.count(id) > 0) continue;
      if (static_cast<size_t>(id) >= fn.value_types.size() || fn.value_types[id] != result)
        continue;
      if (step.op->id == OpId::kDynamicUpdateSlice && j != 0) break;
      step.in_place_operand = static_cast<int>(j);
      break;
    }
  }
}

void plan_region(const Region& region, const Function& fn, Plan& plan, bool fuse);

void plan_nested(const Op& op, const Function& fn, Plan& plan, bool fuse) {
  for (const Region& nested : op.regions) {
    plan.add_region(nested);
    plan_region(nested, fn, plan, fuse);
  }
}

// One step per op in program order (the terminator excluded), then fusion, then releases.
void plan_region(const Region& region, const Function& fn, Plan& plan, bool fuse) {
  RegionPlan& out = plan.mutable_region(region);
  out.args = region.args;
  out.line = region.loc.line;
  const Planning planning{plan.module(), plan};
  std::vector<Step> steps;
  for (size_t k = 0; k < region.ops.size(); ++k) {
    const Op& op = region.ops[k];
    if ((k & 0xFFF) == 0xFFF) check_interrupt();  // builders may check large attributes
    plan_nested(op, fn, plan, fuse);
    if (op.id == OpId::kReturn) {
      out.returns = op.operands;
      continue;
    }
    const OpRow* row = op.id == OpId::kUnknown ? nullptr : &op_row(op.id);
    if (row == nullptr || row->build == nullptr) {
      fail_at(op.loc, "op '" + op.name + "' is not supported by this runtime");
    }
    Step step;
    step.run = row->build(op, planning);
    step.op = &op;
    step.operands = op.operands;
    step.results = op.results;
    steps.push_back(std::move(step));
  }
  out.steps = fuse ? fuse_elementwise(region, std::move(steps)) : std::move(steps);
  plan_releases(region, out);
  const bool function_body = &region == &fn.body;
  if (function_body) out.exit_release.clear();  // the frame goes with the call
  plan_reuse(region, fn, function_body, out);
}

}  // namespace

std::unique_ptr<Plan> plan_module(const Module& module, bool fuse) {
  auto plan = std::make_unique<Plan>(module);
  // Every function's plan first: a call planned before its callee's body holds its plan.
  for (const Function& fn : module.functions) {
    plan->add_function(fn).body = &plan->add_region(fn.body);
  }
  for (const Function& fn : module.functions) plan_region(fn.body, fn, *plan, fuse);
  return plan;
}

int64_t scalar_index(const Tensor& t) {
  return dispatch(t.dtype(), [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T value = *static_cast<const T*>(t.data());
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
        return value > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(value);
      } else {
        return static_cast<int64_t>(value);
      }
    } else {
      fail(ErrorKind::kInvalidArgument, "an index must be an integer tensor");
    }
  });
}

}  // namespace ndbuf::program
