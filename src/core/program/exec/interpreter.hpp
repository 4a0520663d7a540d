// Runs planned functions: one value table (frame) per call, regions evaluated in the frame of
// the function that holds them. Execution walks the plan's steps (plan.hpp) and never looks at
// program text.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "program/exec/exec_context.hpp"
#include "program/exec/plan.hpp"

namespace ndbuf::program {

// A region as kernels see it: 0-d tensors in, tensors out.
using RegionFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// Calls nested deeper than this are an error (a recursive program), not a stack overflow.
inline constexpr int kMaxCallDepth = 256;
// The one recursion budget of execution: every region entered and not yet left counts one
// level (a function body, an if / case / while / map region, a region body a kernel calls
// back), so calls and nesting add up. Deeper is an error, not a stack overflow: a level costs
// at most a few KiB of native stack (interpreter_test.cpp measures it), so the budget fits in
// a fraction of R's 8 MiB main-thread stack. Regions run only on the thread that called
// execute(), never on worker threads, whose stacks are smaller.
inline constexpr int kMaxRegionDepth = 512;

// Donation (execute()): argument `argument` of @main (value `value` of its frame) is donated
// in this run. A step planned to write into it (Step::in_place_argument) may, when it reads
// the value for the last time: just before it runs, when `release` (the caller's hold on the
// argument) is all that holds the value besides the run, `release` is called and the memory
// is offered to the step (ExecContext::result).
struct InPlaceWrite {
  int argument = -1;
  int value = -1;
  std::function<void()> release;
};

class Interpreter {
 public:
  // Runs on `device` (its kernels' results are made there).
  explicit Interpreter(const Plan& plan, Device device = current_device()) : plan_(plan) {
    context_.device = device;
  }

  // Arguments are taken by value: moved in, the run holds them alone.
  Values call(const FunctionPlan& fn, Values args);
  // Binds `args` to the region's block arguments and runs it; returns what its terminator
  // returns. Moved-in arguments are held by the region alone (it may update them in place);
  // from a const reference only the arguments the region reads are copied (a while loop's
  // cond reads its counter, not the arrays the loop carries).
  Values run_region(const RegionPlan& region, Values&& args);
  Values run_region(const RegionPlan& region, const Values& args);
  // Runs the region on `state` moved in, and puts its returns back into `state` (a while
  // loop's carried values, whose vector is then reused iteration after iteration).
  void run_region_on(const RegionPlan& region, Values& state);
  RegionFn region_fn(const RegionPlan& region);
  const Plan& plan() const { return plan_; }
  ExecContext& context() { return context_; }
  void allow_in_place(std::vector<InPlaceWrite> writes);

 private:
  struct Frame {
    Values* values;
    const Function* fn;
  };
  // Runs a region whose arguments are bound in the current frame; its returns into `out`.
  void run_bound(const RegionPlan& region, Values& out);
  Values run_in_place(const Step& step, const Values& operands, const Values& frame);
  std::optional<Tensor> donated_memory(const Step& step, int id,
                                       const std::function<void()>* release,
                                       const Values& frame) const;

  const Plan& plan_;
  ExecContext context_;
  std::vector<InPlaceWrite> in_place_;  // by argument of @main; value -1 when not donated
  std::vector<Frame> frames_;
  int region_depth_ = 0;
};

}  // namespace ndbuf::program
