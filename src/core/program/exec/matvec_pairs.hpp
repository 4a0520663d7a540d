// Fusion of a matrix-vector product with the product of the same matrix's transpose: the
// gradient step of a linear model, z = X w, d = f(z, ...) element-wise, g = d X (X' d), which
// two plain products compute in two passes over X. Fused, one step walks X in blocks of rows:
// each block's z, then its d, then its share of g while the block is still in cache, so X is
// read from memory once. The summation orders are the step's own (below), not the BLAS's:
// results differ from the plain run's in the last bits, never with the thread count.
//
// Orders, per row block of kMatvecBlockRows rows (the last block shorter):
// - rows contiguous in memory (an R matrix): z_i folds j = 0, 1, ... with one fma each; the
//   block's share of g_j folds the block's rows in 16 lanes (row i into lane i % 16, in
//   ascending i, each lane one fma at a time from zero), the lanes then summed by halving
//   (lane l + lane l + 8, then l + l + 4, l + l + 2, l + l + 1);
// - columns contiguous (row-major), or any other strides (each block then copied row-major
//   first): z_i folds the columns in 16 lanes the same way; g's share folds the block's rows
//   in ascending i with one fma each;
// - g_j sums the blocks' shares in block order, starting from zero.
// Error bound: a fold of m terms rounds at most m + 4 times (the halving adds 4), each within
// eps of the running magnitude, so |error| <= (m + 4) eps sum |terms|: m = the columns for z;
// for g, the block's rows for a share plus the block count for the sum of shares, on top of
// what d's own error carries through (matvec_pair_test.cpp checks exactly this bound). The
// plain products' folds have bounds of the same kind.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "program/exec/fusion.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// Rows of one block: 512 rows of 100 f32 columns are 200 KiB, read a second time from the
// second-level cache (10^4 x 100 f32, one thread, C++ harness: blocks of 128 rows 135 us, 256
// 115 us, 512 104 us, 1024 102 us; fewer blocks also leave fewer for the threads to share).
constexpr int64_t kMatvecBlockRows = 512;
// Matrices smaller than this stay with the plain products: they fit in the caches, where a
// second pass costs little.
constexpr int64_t kMatvecPairMinBytes = int64_t{256} << 10;
// So do matrices of fewer rows than this: blocks of rows are what the threads share, and with
// fewer than four the step ran slower than the BLAS's threaded products (256 x 4000 f32,
// 2 threads: 149 against 105 us; 600 x 2000: 137 against 105 us).
constexpr int64_t kMatvecPairMinRows = 4 * kMatvecBlockRows;

// A dot_general of a rank-2 matrix and a rank-1 vector without batch dims: which operand is
// the matrix and which of its dims the product contracts. Declared here, defined with the dot
// kernels (ops/contraction/dot_ops.cpp), as builders are.
struct MatvecProduct {
  int matrix = 0;
  int64_t contracted = 1;
};
std::optional<MatvecProduct> matvec_product(const Op& op);

// A fused pair as it runs. Operand 0 is the matrix, operand 1 the vector w; the leaves of the
// element-wise chain read the operands after them, and the leaf `z_leaf` reads the block's z
// (every chain reads z; -1 for an empty chain, where d is z).
struct MatvecPairPlan {
  DType dtype = DType::kF32;
  int64_t contracted = 1;  // the matrix dim z's product contracts (g's keeps it)
  FusedPlan chain;         // d = f(z, leaves) over [rows]; no program when the chain is empty
  int z_leaf = -1;
  bool has_chain() const { return z_leaf >= 0; }
};

// The run function of a fused pair.
OpFn matvec_pair_run(MatvecPairPlan plan);

// How many fused pairs have run (for tests).
int64_t matvec_pair_runs();

// Finds the pairs among `region`'s open steps (one per op, the terminator excluded) and
// replaces each by one step at the second product's index (fate kTaken); the first product,
// the chain's ops and the broadcasts and constants only they read become kGone. A pair fuses
// when the matrix holds kMatvecPairMinBytes or more of f32 or f64 in kMatvecPairMinRows rows
// or more and nothing outside the pair reads z or the chain's values.
void fuse_matvec_pairs(const Region& region, std::vector<Step>& steps,
                       std::vector<StepFate>& fates);

}  // namespace ndbuf::program
