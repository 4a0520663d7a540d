// Small products without the BLAS (dot_small.hpp).
#include "program/ops/contraction/dot_small.hpp"

#include <algorithm>
#include <cmath>

#include "base/isa_clones.hpp"

// The FMA instruction where the CPU has it; elsewhere std::fma in software, with the same bits.
#define NDBUF_DOT_CLONES NDBUF_ISA_CLONES("fma", "default")

namespace ndbuf::program {
namespace {

// Rows of c computed together and the width of c's column blocks: their accumulators (4 x 16
// floats or 4 x 8 doubles, eight 256-bit registers) stay in registers over the whole chain.
constexpr int64_t kRowsAtOnce = 4;
constexpr int64_t kBlockBytes = 64;

// c (m x n, row-major) = a b, where a(i, p) is a[i * a_row + p * a_col] and b is k rows of
// `padded` elements (n of them, then zeros). Each element's chain runs in ascending p; the
// lanes of a block and the rows computed together are independent chains.
template <class C>
NDBUF_DOT_CLONES void multiply_blocks(const C* a, int64_t a_row, int64_t a_col,
                                      const C* __restrict b, int64_t padded, C* __restrict c,
                                      int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kWidth = kBlockBytes / static_cast<int64_t>(sizeof(C));
  for (int64_t i0 = 0; i0 < m; i0 += kRowsAtOnce) {
    const int64_t rows = std::min(kRowsAtOnce, m - i0);
    const C* a_rows[kRowsAtOnce];
    // Rows past m repeat the last one; their sums are not stored.
    for (int64_t r = 0; r < kRowsAtOnce; ++r) a_rows[r] = a + std::min(i0 + r, m - 1) * a_row;
    for (int64_t j0 = 0; j0 < padded; j0 += kWidth) {
      C sums[kRowsAtOnce][kWidth] = {};
      for (int64_t p = 0; p < k; ++p) {
        const C* __restrict b_block = b + p * padded + j0;
#pragma GCC unroll 4
        for (int64_t r = 0; r < kRowsAtOnce; ++r) {
          const C x = a_rows[r][p * a_col];
#pragma omp simd
          for (int64_t j = 0; j < kWidth; ++j) sums[r][j] = std::fma(x, b_block[j], sums[r][j]);
        }
      }
      const int64_t width = std::min(kWidth, n - j0);
      for (int64_t r = 0; r < rows; ++r) {
        std::copy(sums[r], sums[r] + width, c + (i0 + r) * n + j0);
      }
    }
  }
}

template <class C>
void small_product(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan, C* c) {
  constexpr int64_t kWidth = kBlockBytes / static_cast<int64_t>(sizeof(C));
  const int64_t m = lhs.shape()[plan.l.free[0]], k = lhs.shape()[plan.l.contracting[0]];
  const int64_t n = rhs.shape()[plan.r.free[0]];
  const int64_t b_row = rhs.strides()[plan.r.contracting[0]];
  const int64_t b_col = rhs.strides()[plan.r.free[0]];
  const C* b = static_cast<const C*>(rhs.data());
  // rhs's rows padded with zeros to whole blocks, on the stack: k * n is at most half of
  // kSmallDotProduct (m is 2 or more) and k at most kSmallDotDepth.
  constexpr int64_t kMaxRows = kSmallDotProduct / 2 + kSmallDotDepth * (kWidth - 1);
  C rows[kMaxRows];
  const int64_t padded = (n + kWidth - 1) / kWidth * kWidth;
  for (int64_t p = 0; p < k; ++p) {
    C* row = rows + p * padded;
    if (b_col == 1) {
      // A row-major rhs: whole rows (the strided loop cost a 10 x 10 product a fifth of its
      // instructions).
      std::copy(b + p * b_row, b + p * b_row + n, row);
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] = b[p * b_row + j * b_col];
    }
    std::fill(row + n, row + padded, C{0});
  }
  multiply_blocks(static_cast<const C*>(lhs.data()), lhs.strides()[plan.l.free[0]],
                  lhs.strides()[plan.l.contracting[0]], rows, padded, c, m, n, k);
}

}  // namespace

bool small_dot_fits(const Shape& lhs, const Shape& rhs, const DotPlan& plan) {
  const bool simple = plan.l.batch.empty() && plan.l.free.size() == 1 &&
                      plan.l.contracting.size() == 1 && plan.r.free.size() == 1;
  if (!simple) return false;
  const int64_t m = lhs[plan.l.free[0]], k = lhs[plan.l.contracting[0]];
  const int64_t n = rhs[plan.r.free[0]];
  return m > 1 && n > 1 && k > 0 && k <= kSmallDotDepth && m * n * k <= kSmallDotProduct;
}

bool small_dot(const Tensor& lhs, const Tensor& rhs, const DotPlan& plan, Tensor& result) {
  const DType dtype = result.dtype();
  if (lhs.dtype() != dtype || rhs.dtype() != dtype) return false;
  if (dtype == DType::kF32) {
    small_product(lhs, rhs, plan, static_cast<float*>(result.data()));
    return true;
  }
  if (dtype == DType::kF64) {
    small_product(lhs, rhs, plan, static_cast<double*>(result.data()));
    return true;
  }
  return false;
}

}  // namespace ndbuf::program
