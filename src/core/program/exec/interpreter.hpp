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
  const Module& module_;
  std::vector<Values*> frames_;
};

}  // namespace ndbuf::program
