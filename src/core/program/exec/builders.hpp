// Op builders: each turns one verified op into its planned run function, decoding and
// checking attributes and shapes at compile time (errors carry the op's line:column).
#pragma once

#include <vector>

#include "program/exec/interpreter.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

using Builder = OpFn (*)(const Op& op, const Module& module);

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

// Sets Op::run for every op of every function (an op without a builder is an error naming
// it), then, when `fuse`, replaces chains of element-wise ops by fused ops (fusion.hpp).
void plan_module(Module& module, bool fuse = true);

// Adapters from tensor kernels to run functions.
template <class F>
OpFn tensor_fn(F f) {
  return [f](Interpreter&, const Values& args) -> Values { return {Value(f(args))}; };
}

// The integer in a 0-d integer tensor (dynamic_slice start indices, case index).
int64_t scalar_index(const Tensor& t);

}  // namespace ndbuf::program
