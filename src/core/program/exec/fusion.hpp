// Loop fusion: a group of element-wise ops (with the broadcasts and constants that feed them)
// compiles to one element program (element/element_program.hpp) that runs over the output
// tile by tile, each tile small enough to stay in cache, so the chain makes one pass over
// memory and no full-size intermediate exists.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "program/element/element_program.hpp"
#include "program/exec/plan.hpp"
#include "program/exec/region_graph.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// Where a group reads one input from, as a view over the group's output shape.
struct FusedLeaf {
  enum class Kind {
    kSame,       // the fused op's operand `operand`, already of the output shape
    kBroadcast,  // operand `operand` broadcast to the output shape along `dims`
    kScalar,     // a 0-d operand passed to its op as 0-d (select's pred, clamp's bounds)
    kConstant,   // a constant captured at compile time, of the output shape (any strides)
  };
  Kind kind = Kind::kSame;
  int operand = -1;
  std::vector<int64_t> dims;  // kBroadcast: output axis of each operand axis
  std::optional<Tensor> constant;
};

// A group as it runs: argument k of `program` is leaf k's element, its one result the
// output's element; the steps follow the members in program order.
struct FusedPlan {
  Type output;
  // The output may take the layout its full-size leaves share (RegionFacts::any_layout).
  bool any_layout = false;
  std::vector<FusedLeaf> leaves;
  ElementProgram program;
};

// A leaf as a run reads it: its tensor and its strides over the output's axes (empty for a
// 0-d leaf passed to its op as it is).
struct LeafSource {
  const Tensor& tensor() const { return held ? *held : *borrowed; }

  const Tensor* borrowed = nullptr;  // an argument or constant in host memory, read in place
  std::optional<Tensor> held;        // otherwise its host copy
  Strides strides;
};

// The ops the op table marks fusible: element-wise, each result element computed from the
// operands' elements at its position, 0-d operands broadcast (unary and binary ops, compare,
// select, clamp, convert, reduce_precision).
bool is_fusible_op(OpId id);

// An op loop fusion takes: element-wise (is_fusible_op), one tensor result of rank >= 1, every
// operand of that shape or 0-d.
bool fusible_elementwise(const Op& op);

// A broadcast_in_dim, constant or transpose of `shape` that a fused loop reads in place as a
// leaf (a transpose with permuted strides: a while body of 10 x 10 transposes and adds runs
// 0.32 us an op so, 0.55 with the transposes as steps; 40 x 40 0.50 against 1.10).
bool is_feeder(const Op& op, const Shape& shape);

// The leaf of a feeder (is_feeder) whose broadcast operand is the step's operand `operand`.
FusedLeaf feeder_leaf_of(const Op& feeder, int operand);

// The run function of a fused group; its operands are the values the leaves name.
OpFn fused_run(FusedPlan plan);

// How many fused groups have run (for tests).
int64_t fused_program_runs();

// What an earlier pass made of an op's step: left open for loop fusion, taken (the step at the
// op's index is that pass's, kept as it is), or gone (another step does its work).
enum class StepFate : uint8_t { kOpen, kTaken, kGone };

// One group's plan for a pass that runs it inside a step of its own: the leaves every value
// read from outside `members` becomes (broadcasts and constants of the group's shape read in
// place: `absorbed`, their op indices), the element program computing the last member's
// result, and the values the leaves read (`operands`, leaf operand k is operands[k]).
// `members`: element-wise ops of `region` of one shape, in program order, the last one the
// only one whose result leaves the group. nullopt when a member has no element step.
struct GroupPlan {
  FusedPlan plan;
  std::vector<int> operands;
  std::vector<int> absorbed;
};
std::optional<GroupPlan> plan_group(const Region& region, const RegionGraph& graph,
                                    const std::vector<int>& members);

// `steps`: the region's planned steps, one per op in program order (the terminator excluded),
// `fates` one per step. Returns the steps to run: every group of two or more open element-wise
// ops, or of one fed by broadcasts or constants, becomes one fused step at the group's root (a
// group with an op the element program cannot express is left unfused); the other members,
// feeders read only in place, and gone steps are left out. The region itself is not changed.
// A group whose root's result is in `any_layout` may write it in its leaves' layout.
std::vector<Step> fuse_elementwise(const Region& region, std::vector<Step> steps,
                                   const std::vector<StepFate>& fates,
                                   const std::vector<int>& any_layout);

}  // namespace ndbuf::program
