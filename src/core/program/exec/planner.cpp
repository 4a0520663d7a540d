// Makes the execution plan (plan.hpp): every op bound to the run function its backend lowers it
// to (backend.hpp), the backend's fusion, then releases and in-place writes.
#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/backend.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/region_graph.hpp"
#include "program/ir/attr_access.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

// The values a step reads, its op's nested regions included.
std::vector<int> step_uses(const Step& step) {
  std::vector<int> uses = step.operands;
  for (const Region& nested : step.op->regions) {
    for (const Op& inner : nested.ops) collect_uses(inner, uses);
  }
  return uses;
}

// Marks, for each value defined in the region, the step after which it is no longer read, so
// the interpreter frees intermediates as soon as possible (peak memory stays near the live
// set). A value the terminator returns is never released.
void plan_releases(const Region& region, RegionPlan& plan) {
  std::unordered_map<int, size_t> last_use;
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    for (int id : step_uses(plan.steps[k])) last_use[id] = k;
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

// Marks, per step, an operand whose memory the step may reuse for its result: a value of the
// region (not an argument of a function, which the caller lends: donation decides those) read
// here for the last time, of the result's type.
void plan_reuse(const Region& region, const Function& fn, bool function_body,
                const Backend& backend, RegionPlan& plan) {
  std::unordered_set<int> lent;
  if (function_body) lent.insert(region.args.begin(), region.args.end());
  for (Step& step : plan.steps) {
    if (step.results.size() != 1 || !step.op->result_types[0].is_tensor()) continue;
    const Type& result = step.op->result_types[0];
    for (size_t j = 0; j < step.operands.size(); ++j) {
      const int id = step.operands[j];
      const bool released =
          std::find(step.release.begin(), step.release.end(), id) != step.release.end();
      if (!released || lent.count(id) > 0) continue;
      if (static_cast<size_t>(id) >= fn.value_types.size() || fn.value_types[id] != result)
        continue;
      if (!backend.may_write_over(step, j)) continue;
      step.in_place_operand = static_cast<int>(j);
      break;
    }
  }
}

// The values the region's terminator returns that no step reads (`steps`: one per op).
std::vector<int> returned_only(const Region& region, const std::vector<Step>& steps) {
  std::unordered_set<int> read;
  for (const Step& step : steps) {
    for (int id : step_uses(step)) read.insert(id);
  }
  std::vector<int> out;
  if (region.ops.empty() || region.ops.back().id != OpId::kReturn) return out;
  for (int id : region.ops.back().operands) {
    if (read.count(id) == 0) out.push_back(id);
  }
  return out;
}

std::string unsupported_message(const Op& op, const Backend& backend) {
  if (op.id == OpId::kUnknown || op_row(op.id).build == nullptr) {
    return "op '" + op.name + "' is not supported by this runtime";
  }
  return "op '" + op.name + "' is not supported by the " + std::string(backend.name()) + " backend";
}

void plan_region(const Region& region, const Function& fn, Plan& plan, PlanPasses passes,
                 const Backend& backend);

void plan_nested(const Op& op, const Function& fn, Plan& plan, PlanPasses passes,
                 const Backend& backend) {
  for (const Region& nested : op.regions) {
    plan.add_region(nested);
    plan_region(nested, fn, plan, passes, backend);
  }
}

// One step per op in program order (the terminator excluded), each lowered by the backend,
// then the backend's fusion, then releases and in-place writes.
void plan_region(const Region& region, const Function& fn, Plan& plan, PlanPasses passes,
                 const Backend& backend) {
  RegionPlan& out = plan.mutable_region(region);
  out.args = region.args;
  out.line = region.loc.line;
  const Planning planning{plan.module(), plan, passes};
  std::vector<Step> steps;
  for (size_t k = 0; k < region.ops.size(); ++k) {
    const Op& op = region.ops[k];
    if ((k & 0xFFF) == 0xFFF) check_interrupt();  // builders may check large attributes
    plan_nested(op, fn, plan, passes, backend);
    if (op.id == OpId::kReturn) {
      out.returns = op.operands;
      continue;
    }
    Step step;
    step.run = backend.lower(op, planning);
    if (!step.run) fail_at(op.loc, unsupported_message(op, backend));
    step.op = &op;
    step.operands = op.operands;
    step.results = op.results;
    steps.push_back(std::move(step));
  }
  const bool function_body = &region == &fn.body;
  RegionFacts facts;
  if (function_body && fn.name == "main") facts.any_layout = returned_only(region, steps);
  out.steps = backend.fuse(region, std::move(steps), passes, facts);
  plan_releases(region, out);
  if (function_body) out.exit_release.clear();  // the frame goes with the call
  plan_reuse(region, fn, function_body, backend, out);
}

}  // namespace

// The steps in an order where every value is written before it is read, as close to the given
// order as that allows: a row-fused step sits at its last op's place, which may come after an
// op outside it that reads one of its earlier values.
std::vector<Step> order_by_dependencies(std::vector<Step> steps) {
  std::unordered_map<int, size_t> writer;
  for (size_t k = 0; k < steps.size(); ++k) {
    for (int id : steps[k].results) writer[id] = k;
  }
  std::vector<std::vector<size_t>> readers(steps.size());
  std::vector<size_t> waiting(steps.size(), 0);
  for (size_t k = 0; k < steps.size(); ++k) {
    std::vector<size_t> needs;
    for (int id : step_uses(steps[k])) {
      auto it = writer.find(id);
      if (it != writer.end() && it->second != k) needs.push_back(it->second);
    }
    std::sort(needs.begin(), needs.end());
    needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
    waiting[k] = needs.size();
    for (size_t need : needs) readers[need].push_back(k);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t k = 0; k < steps.size(); ++k) {
    if (waiting[k] == 0) ready.push(k);
  }
  std::vector<Step> ordered;
  while (!ready.empty()) {
    const size_t k = ready.top();
    ready.pop();
    ordered.push_back(std::move(steps[k]));
    for (size_t reader : readers[k]) {
      if (--waiting[reader] == 0) ready.push(reader);
    }
  }
  return ordered;
}

std::unique_ptr<Plan> plan_module(const Module& module, PlanPasses passes, const Backend* chosen) {
  const Backend& backend = chosen == nullptr ? cpu_backend() : *chosen;
  auto plan = std::make_unique<Plan>(module);
  // Every function's plan first: a call planned before its callee's body holds its plan.
  for (const Function& fn : module.functions) {
    plan->add_function(fn).body = &plan->add_region(fn.body);
  }
  for (const Function& fn : module.functions) plan_region(fn.body, fn, *plan, passes, backend);
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
