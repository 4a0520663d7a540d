// Layouts of arguments, a first slice of layout assignment. An argument of @main
// that a step inside a while loop reads (a weight matrix, a data set sliced batch by batch)
// and that arrives in another layout than dense row-major (R's matrices are column-major) is
// copied to dense row-major once, when the run starts, instead of being read strided by every
// iteration (a while body of 10 x 10 dot_generals: 0.62 us a product with a column-major
// operand, 0.48 with a row-major one). Values are the same either way; tests compare both.
#pragma once

#include <cstddef>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/exec/plan.hpp"

namespace ndbuf::program {

// Arguments larger than this are read as they are: the copy would double their memory, and a
// loop may read only a few rows of them.
inline constexpr int64_t kLoopLayoutMaxBytes = int64_t{16} << 20;

// Per argument of `main`: whether a step inside a while loop, at any depth of control flow
// (while, if, case), reads it.
std::vector<bool> args_read_in_loops(const Plan& plan, const Function& main);

// Per argument of `main`: whether a step of its body reads it faster dense row-major: a
// gather of whole rows (gather_reads_whole_rows) takes it as its operand, a cluster fused
// through its reductions (row_fusion.hpp) reads it, a convolution, or a dot_general of
// batches of matrices (a batch dim that varies fastest, as in an R array, makes every matrix
// strided, to be packed each run).
std::vector<bool> args_read_by_rows(const Plan& plan, const Function& main);

// Whether `op` (a stablehlo.gather) takes whole rows of its operand (one start index into
// dim 0, which is collapsed, every other dim whole); defined with the gather kernels.
bool gather_reads_whole_rows(const Op& op);

// `input` as loops read it best: dense row-major when it is host memory in another layout and
// of at most kLoopLayoutMaxBytes, else `input` itself.
Tensor loop_layout(const Tensor& input);

}  // namespace ndbuf::program
