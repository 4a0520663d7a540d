// Op builders: each turns one verified op into its planned run function, decoding and
// checking attributes and shapes at compile time (errors carry the op's line:column).
#pragma once

#include <vector>

#include "program/exec/interpreter.hpp"
#include "program/exec/plan.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// What a builder sees besides its op: the module, and the plan being made. An op's own
// regions are planned before the op, and every function's plan exists (perhaps not yet filled)
// before any op is planned, so a run function finds the RegionPlan / FunctionPlan it calls
// once, here, and holds a pointer to it.
struct Planning {
  const Module& module;
  const Plan& plan;
};

using Builder = OpFn (*)(const Op& op, const Planning& planning);

struct BuilderEntry {
  const char* name;
  Builder build;
};

std::vector<BuilderEntry> structure_builders();
std::vector<BuilderEntry> control_builders();
std::vector<BuilderEntry> check_builders();
std::vector<BuilderEntry> elementwise_builders();
std::vector<BuilderEntry> indexing_builders();
std::vector<BuilderEntry> reduction_builders();
std::vector<BuilderEntry> custom_call_builders();
std::vector<BuilderEntry> linalg_builders();
std::vector<BuilderEntry> fft_builders();
std::vector<BuilderEntry> chlo_builders();
std::vector<BuilderEntry> convolution_builders();

// The plan of every region of every function: one step per op, bound to its builder's run
// function (an op without a builder is an error naming it), then, when `fuse`, one step per
// group of element-wise ops in place of its members (fusion.hpp), then the values each step
// reads for the last time. The module is only read; the plan points into it.
std::unique_ptr<Plan> plan_module(const Module& module, bool fuse = true);

// Adapters from tensor kernels to run functions.
template <class F>
OpFn tensor_fn(F f) {
  return [f](Interpreter&, const Values& args) -> Values { return {Value(f(args))}; };
}

// The integer in a 0-d integer tensor (dynamic_slice start indices, case index).
int64_t scalar_index(const Tensor& t);

}  // namespace ndbuf::program
