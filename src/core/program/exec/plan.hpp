// The execution plan: what the interpreter walks. Planning reads the verified module (which
// stays as parsed) and produces, per region, the list of steps to run in order; loop fusion
// replaces a group of ops by one step. The plan points into the module (ops for their
// locations and declared result types, functions for their names), so the two live and die
// together and neither changes after compile (compile.hpp).
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "program/exec/kept_slot.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

class Interpreter;
// A step's run function: decoded attributes bound at compile time; operands in, results out.
using OpFn = std::function<Values(Interpreter&, const Values&)>;

struct Step {
  OpFn run;
  // The op this step runs (a fused group's root): its location and declared results.
  const Op* op = nullptr;
  std::vector<int> operands;  // value ids read, in the run function's order
  std::vector<int> results;   // value ids written
  std::vector<int> release;   // values of the region last read here: dropped after the step
  bool fused = false;         // a loop-fusion group (fusion.hpp)
  bool row_fused = false;     // a cluster fused through its reductions (row_fusion.hpp)
  bool matvec_pair = false;   // a matrix-vector product and its transpose's (matvec_pairs.hpp)
  // A fused step whose result may follow its operands into column-major order
  // (FusedPlan::any_layout), for plan_text().
  bool any_layout = false;
  // A fused step's ops, in program order (what plan_text() lists); empty for one op's step.
  std::vector<const Op*> members;
  // Donation: the argument of @main whose memory this step may write its one result into
  // (donation.hpp); -1 when none.
  int in_place_argument = -1;
  // Reuse inside the program: the operand (index into `operands`) whose memory this step may
  // write its one result into, a value of the region read here for the last time (planner.cpp);
  // -1 when none. Taken only when the run holds that memory alone (Interpreter).
  int in_place_operand = -1;
};

// Whether `step` runs a control-flow op (while, if, case) whose regions are planned on their own.
inline bool runs_nested_plans(const Step& step) {
  if (step.fused || step.row_fused || step.matvec_pair) return false;
  const OpId id = step.op->id;
  return id == OpId::kWhile || id == OpId::kIf || id == OpId::kCase;
}

struct RegionPlan {
  std::vector<int> args;     // the block arguments' value ids
  std::vector<Step> steps;   // in program order, the terminator excluded
  std::vector<int> returns;  // the terminator's operands: what the region gives back
  // Values of a nested region that no step releases (unused, or returned): dropped when the
  // region returns, so the frame does not hold them while the caller carries on (a while
  // loop's state then stays held only by the loop, and its body can update it in place).
  std::vector<int> exit_release;
  // Per block argument: whether a step or the terminator reads it (planner.cpp).
  std::vector<bool> args_read;
  int line = 0;  // the region's line, for the recursion error
};

struct FunctionPlan {
  const Function* function = nullptr;
  const RegionPlan* body = nullptr;
  // A frame (one value per SSA id) kept for the next call: a frame of more than a few dozen
  // values is a large allocation, which costs the allocator a sweep of its small free lists.
  std::shared_ptr<KeptSlot<Values>> spare_frame = std::make_shared<KeptSlot<Values>>();
};

// Every region's plan in storage that never moves, so run functions hold `const RegionPlan*`
// and `const FunctionPlan*` found once, at plan time.
class Plan {
 public:
  explicit Plan(const Module& module) : module_(&module) {}
  const Module& module() const { return *module_; }
  const RegionPlan& region(const Region& region) const;
  const FunctionPlan& function(const Function& function) const;
  const FunctionPlan* find(const std::string& name) const;

  // Planning only (planner.cpp, donation.cpp).
  RegionPlan& add_region(const Region& region);
  RegionPlan& mutable_region(const Region& region);
  FunctionPlan& add_function(const Function& function);

 private:
  const Module* module_;
  std::vector<std::unique_ptr<RegionPlan>> regions_;
  std::vector<std::unique_ptr<FunctionPlan>> functions_;
  std::unordered_map<const Region*, RegionPlan*> by_region_;
  std::unordered_map<const Function*, FunctionPlan*> by_function_;
};

}  // namespace ndbuf::program
