// Op builders: each turns one verified op into its planned run function, decoding and
// checking attributes and shapes at compile time (errors carry the op's line:column).
#pragma once

#include "program/exec/interpreter.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

using Builder = OpFn (*)(const Op& op, const Module& module);

// Every builder the op table names (program/registry/ops.def), defined in the *_wiring.cpp /
// *_ops.cpp file of its family.
#define NDBUF_OP(name, kind, builder, pretty, fusible, attrs) \
  OpFn builder(const Op& op, const Module& module);
#include "program/registry/ops.def"
OpFn build_unary(const Op& op, const Module& module);
OpFn build_binary(const Op& op, const Module& module);
OpFn build_broadcast_binary(const Op& op, const Module& module);

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
