// The fast path of fused groups: a group whose members all have span kernels
// (span_kernels.hpp), over one float dtype, runs tile by tile through a few cache-resident
// registers, reading its inputs in place and writing its root straight into the output.
#pragma once

#include <optional>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/exec/fusion.hpp"
#include "program/kernels/elementwise.hpp"

namespace ndbuf::program {

struct SpanStep {
  bool is_binary = false;
  UnaryOp unary = UnaryOp::kNegate;
  BinaryOp binary = BinaryOp::kAdd;
  std::vector<int> inputs;  // slots: [0, leaves) the leaves, leaves + r register r
  int result = -1;          // register written; -1 for the root (the output)
};

struct SpanProgram {
  DType dtype = DType::kF32;
  int leaves = 0;
  int registers = 0;
  std::vector<SpanStep> steps;
};

// The span program of a group with these member ops (program order, the root last), or
// nothing when a member has no span kernel or the dtypes are not one float type.
std::optional<SpanProgram> span_program(const FusedPlan& plan, const std::vector<const Op*>& ops);

// Runs `program` into `out` when every leaf repeats with a period along the output's flat
// row-major order (dense, broadcast over leading axes, or one repeated element); returns
// false, having written nothing, otherwise.
bool run_span_program(const SpanProgram& program, const std::vector<LeafSource>& leaves,
                      Tensor& out);

// How many runs took the span path (for tests).
int64_t span_program_runs();

}  // namespace ndbuf::program
