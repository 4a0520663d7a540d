// Runs planned functions: one value table (frame) per call, regions evaluated in the frame of
// the function that holds them. Execution never looks at program text.
#pragma once

#include <functional>
#include <vector>

#include "program/ir/module.hpp"

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

class Interpreter {
 public:
  explicit Interpreter(const Module& module) : module_(module) {}

  Values call(const Function& fn, const Values& args);
  // Binds `args` to the region's block arguments and runs it; returns what its terminator
  // returns.
  Values run_region(const Region& region, const Values& args);
  RegionFn region_fn(const Region& region);
  const Module& module() const { return module_; }

 private:
  struct Frame {
    Values* values;
    const Function* fn;
  };
  const Module& module_;
  std::vector<Frame> frames_;
  int region_depth_ = 0;
  uint32_t region_entries_ = 0;  // every 1024th polls for a user interrupt (a long while loop)
};

}  // namespace ndbuf::program
