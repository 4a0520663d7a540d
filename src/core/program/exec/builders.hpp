// Op builders: each turns one verified op into its planned run function, decoding its
// attributes at compile time; what its type rule checked is not checked again (errors of the
// few checks left carry the op's line:column).
#pragma once

#include "program/exec/interpreter.hpp"
#include "program/exec/plan.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// What a builder sees besides its op: the module, and the plan being made. An op's own
// regions are planned before the op, and every function's plan exists (perhaps not yet filled)
// before any op is planned, so a run function finds the RegionPlan / FunctionPlan it calls
// once, here, and holds a pointer to it.
struct Planning;

using Builder = OpFn (*)(const Op& op, const Planning& planning);

// Every builder the op table names (program/registry/ops.def), defined in its op's file under
// program/ops/<family>/ with the op's type rule, which has run before it.
#define NDBUF_OP(name, id, kind, builder, rule, pretty, fusible, attrs) \
  OpFn builder(const Op& op, const Planning& planning);
#include "program/registry/ops.def"
OpFn build_unary(const Op& op, const Planning& planning);
OpFn build_binary(const Op& op, const Planning& planning);
OpFn build_broadcast_binary(const Op& op, const Planning& planning);

// Which optimisations planning applies (each off for tests that compare optimised and plain
// runs; CompileOptions).
struct PlanPasses {
  bool elementwise = true;     // fusion.hpp
  bool reductions = true;      // row_fusion.hpp (only with `elementwise`)
  bool region_bodies = true;   // element programs for region bodies (region_program())
  bool result_layouts = true;  // results in their operands' layout where free (RegionFacts)
  bool matvec_pairs = true;    // matvec_pairs.hpp (only with `elementwise`)
};

struct Planning {
  const Module& module;
  const Plan& plan;
  PlanPasses passes;
};

class Backend;

// The plan of every region of every function: one step per op, bound to the run function
// `backend` lowers it to (an op it cannot run is an error naming it), then the backend's
// fusion (the CPU backend's: clusters fused through their reductions, then groups of
// element-wise ops, each one step in place of its members), then the values each step reads
// for the last time and the memory it may write over. The module is only read; the plan points
// into it. Null `backend`: the CPU backend (backend.hpp).
std::unique_ptr<Plan> plan_module(const Module& module, PlanPasses passes = {},
                                  const Backend* backend = nullptr);

// Adapters from tensor kernels to run functions.
template <class F>
OpFn tensor_fn(F f) {
  return [f](Interpreter&, const Values& args) -> Values { return one_value(f(args)); };
}

// Adapter from a kernel that takes its result from a ResultMemory: it gets the memory the run
// offers the step (ExecContext::result).
template <class F>
OpFn offered_memory_fn(F f) {
  return [f](Interpreter& in, const Values& args) -> Values {
    return one_value(f(args, in.context().result));
  };
}

// The integer in a 0-d integer tensor (dynamic_slice start indices, case index).
int64_t scalar_index(const Tensor& t);

}  // namespace ndbuf::program
