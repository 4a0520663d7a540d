// The seam between what compile decides about a program and how its ops run. The passes
// (program/passes/) rewrite the verified module and know nothing of kernels; the planner
// (planner.cpp) owns what any backend needs: one step per op, the order of steps, when each
// value is released, which donated or last-read memory a step is offered. A Backend supplies
// the rest: each op's run function, how it groups steps (fusion), and which of its steps write
// their result over memory offered to them. The CPU backend (cpu_backend.cpp) is the op table's
// builders (registry/ops.def), the loop and row fusion of exec/, and the element programs; a
// second one (a GPU's) implements the same three calls and is handed to compile through
// CompileOptions::backend, without a change to the passes or the planner.
#pragma once

#include <string_view>
#include <vector>

#include "program/exec/builders.hpp"
#include "program/exec/plan.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// What the planner knows of a region's values that a backend's fusion may use.
struct RegionFacts {
  // Values @main returns that no op reads: execute() hands results out in any layout, so how
  // these are laid out is the backend's choice (empty for every other region, whose values
  // flow on into ops whose summation order may follow the layout they read).
  std::vector<int> any_layout;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Named in compile errors ("op 'x' is not supported by the y backend").
  virtual std::string_view name() const = 0;

  // The run function of `op`, whose own regions are planned already (a run function may hold
  // pointers to their plans); an empty OpFn when this backend cannot run the op. It receives
  // the execution's context through Interpreter::context() when it runs.
  virtual OpFn lower(const Op& op, const Planning& planning) const = 0;

  // The region's steps (one per op, in program order, each lowered) regrouped as this backend
  // runs them: fused steps in place of their members. The result must be in an order where
  // every value is written before it is read.
  virtual std::vector<Step> fuse(const Region& region, std::vector<Step> steps,
                                 const PlanPasses& passes, const RegionFacts& facts) const = 0;

  // Whether `step`'s run may write its single result over operand `operand`'s memory when the
  // interpreter offers it (ExecContext::result): it takes its result from the offered memory
  // and computes each result element from operand elements at the same position. The planner
  // offers only an operand of the result's type read there for the last time.
  virtual bool may_write_over(const Step& step, size_t operand) const = 0;
};

// The backend of CPU devices: the op table's builders and the loop fusion of exec/.
const Backend& cpu_backend();

// `steps` in an order where every value is written before it is read, as close to the given
// order as that allows (for a fuse() that moves a fused step to its last member's place).
std::vector<Step> order_by_dependencies(std::vector<Step> steps);

}  // namespace ndbuf::program
