// Fusion through reductions. Softmax, layer norm, logsumexp and their kin reduce each row of
// an element-wise expression and feed the row's result back into element-wise ops over the
// same row. Such a cluster (element-wise ops over [rows..., cols...], reductions over the
// trailing cols dims, element-wise ops over the [rows...] results, broadcasts of those back
// over the rows) runs as one step over blocks of rows: every value of the cluster lives in a
// block-sized register while the block is in cache, and only the values read after the
// cluster are written out. A reduction folds each row exactly as the unfused kernel folds a
// row-major row (reduce_fast.hpp: fold_rows), so fused and plain runs agree bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "program/element/element_program.hpp"
#include "program/exec/fusion.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Where argument k of an element unit reads its lanes from.
struct RowInput {
  enum class Kind {
    kOutside,       // `leaf`, over the unit's shape, from the step's operands
    kRegister,      // register `reg`, of the unit's kind
    kRowBroadcast,  // row register `reg`, each row's element repeated over its cols
  };
  Kind kind = Kind::kOutside;
  FusedLeaf leaf;
  int reg = -1;
};

// One step of a block: an element-wise op over the block (full: rows x cols lanes; else rows),
// a reduction of a full register's rows into a row register, or the load of an operand of the
// step that a maximum or minimum reduces into a full register (read there by the ops after it).
struct RowUnit {
  enum class Kind { kElement, kReduce, kLoad };
  Kind kind = Kind::kElement;
  bool full = true;
  std::vector<RowInput> inputs;  // kElement: argument k of `program`; kLoad: the operand
  ElementProgram program;        // kElement
  FastBody body = FastBody::kNone;
  int in = -1;    // reduce: the full register folded
  int init = -1;  // reduce: the step operand holding the 0-d init value
  // reduce of a loaded operand: that step operand, whose layout at run time decides the fold's
  // order (the unfused kernel's for that layout: reduces_in_column_order); -1 otherwise.
  int loaded = -1;
  int out = -1;
};

struct RowRegister {
  DType dtype = DType::kF32;
  bool full = true;
};

struct RowPlan {
  Shape full_shape;  // [rows..., cols...]
  Shape row_shape;   // [rows...]
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<RowRegister> registers;
  std::vector<RowUnit> units;  // in program order
  std::vector<int> results;    // the register of each step result
};

// The run function of a row-fused step; its operands are those the leaves and inits name.
OpFn row_fused_run(RowPlan plan);

// How many row-fused steps have run, and how many of them wrote their results around the
// caches (kStreamedResultBytes or more) (for tests).
int64_t row_fused_runs();
int64_t row_fused_streamed_runs();

// Finds the clusters of `region` (one step per op in `steps`, the terminator excluded) and
// replaces each by one row-fused step at its last op's index (fate kTaken); its other ops, and
// the broadcasts and constants only it reads, become kGone. Ops it does not take stay kOpen.
void fuse_rows(const Region& region, std::vector<Step>& steps, std::vector<StepFate>& fates);

}  // namespace ndbuf::program
