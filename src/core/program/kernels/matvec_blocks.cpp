// Per-block products of a fused matrix-vector pair (matvec_blocks.hpp).
#include "program/kernels/matvec_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "base/isa_clones.hpp"

// The FMA instruction where the CPU has it; elsewhere std::fma in software, with the same bits.
#define NDBUF_MATVEC_CLONES NDBUF_ISA_CLONES("fma", "default")

namespace ndbuf::program {
namespace {

// Lanes of the folds that run across a contiguous run of elements.
constexpr int64_t kLanes = 16;
// Rows of an R matrix's block whose products are folded together, their sums in registers:
// kRowGroups groups of kLanes (measured on the 2-core Zen 4 test machine, 10^4 x 100 f32 in
// blocks of 256 rows: 8 groups 54 us, 4 groups 58 us, one loop over 32 rows 128 us).
constexpr int64_t kRowGroups = 8;
// Columns whose shares are folded together (each its own lanes), reading d once for all (8:
// 67 us over the same matrix, 4: 75 us, 2: 82 us).
constexpr int64_t kColumnGroup = 8;

// The helpers below are inlined into each instruction-set clone of their callers (a call would
// run the baseline build, with std::fma a library call per element).

// The lanes summed by halving: lane l + lane l + 8, then l + l + 4, l + l + 2, l + l + 1 (fixed
// trip counts, so the compiler keeps the halves in vector registers).
template <class T>
[[gnu::always_inline]] inline T sum_lanes(T* lanes) {
  static_assert(kLanes == 16, "the halving below is written for 16 lanes");
#pragma omp simd
  for (int64_t l = 0; l < 8; ++l) lanes[l] += lanes[l + 8];
#pragma omp simd
  for (int64_t l = 0; l < 4; ++l) lanes[l] += lanes[l + 4];
  lanes[0] += lanes[2];
  lanes[1] += lanes[3];
  return lanes[0] + lanes[1];
}

// sum over i of a[i] b[i] in kLanes lanes (element i into lane i % kLanes).
template <class T>
[[gnu::always_inline]] inline T lane_dot(const T* a, const T* b, int64_t count) {
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
#pragma omp simd
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::fma(a[i + l], b[i + l], lanes[l]);
  }
  for (int64_t l = 0; i + l < count; ++l) lanes[l] = std::fma(a[i + l], b[i + l], lanes[l]);
  return sum_lanes(lanes);
}

}  // namespace

template <class T>
NDBUF_MATVEC_CLONES void block_products_rows_contiguous(const T* x, int64_t stride, int64_t rows,
                                                        int64_t cols, const T* w, T* z) {
  constexpr int64_t kChunk = kRowGroups * kLanes;
  int64_t i0 = 0;
  for (; i0 + kChunk <= rows; i0 += kChunk) {
    T sums[kRowGroups][kLanes] = {};
    for (int64_t j = 0; j < cols; ++j) {
      const T* column = x + i0 + j * stride;
      const T weight = w[j];
#pragma GCC unroll 8
      for (int64_t g = 0; g < kRowGroups; ++g) {
#pragma omp simd
        for (int64_t l = 0; l < kLanes; ++l) {
          sums[g][l] = std::fma(column[g * kLanes + l], weight, sums[g][l]);
        }
      }
    }
    for (int64_t g = 0; g < kRowGroups; ++g) {
      std::copy(sums[g], sums[g] + kLanes, z + i0 + g * kLanes);
    }
  }
  // The rows left: 16 at a time, then a short group whose lanes past the block repeat its
  // last row (their sums are not stored); each row's fold is the same.
  for (; i0 < rows; i0 += kLanes) {
    const int64_t count = std::min(kLanes, rows - i0);
    int64_t row_of[kLanes];
    for (int64_t l = 0; l < kLanes; ++l) row_of[l] = i0 + std::min(l, count - 1);
    T sums[kLanes] = {};
    if (count == kLanes) {
      for (int64_t j = 0; j < cols; ++j) {
        const T* column = x + i0 + j * stride;
        const T weight = w[j];
#pragma omp simd
        for (int64_t l = 0; l < kLanes; ++l) sums[l] = std::fma(column[l], weight, sums[l]);
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        const T* column = x + j * stride;
        const T weight = w[j];
#pragma omp simd
        for (int64_t l = 0; l < kLanes; ++l) {
          sums[l] = std::fma(column[row_of[l]], weight, sums[l]);
        }
      }
    }
    std::copy(sums, sums + count, z + i0);
  }
}

template <class T>
NDBUF_MATVEC_CLONES void block_products_cols_contiguous(const T* x, int64_t stride, int64_t rows,
                                                        int64_t cols, const T* w, T* z) {
  for (int64_t i = 0; i < rows; ++i) z[i] = lane_dot(x + i * stride, w, cols);
}

template <class T>
NDBUF_MATVEC_CLONES void block_shares_rows_contiguous(const T* x, int64_t stride, int64_t rows,
                                                      int64_t cols, const T* d, T* share) {
  int64_t j0 = 0;
  for (; j0 + kColumnGroup <= cols; j0 += kColumnGroup) {
    T lanes[kColumnGroup][kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= rows; i += kLanes) {
#pragma GCC unroll 8
      for (int64_t c = 0; c < kColumnGroup; ++c) {
        const T* column = x + (j0 + c) * stride + i;
#pragma omp simd
        for (int64_t l = 0; l < kLanes; ++l) {
          lanes[c][l] = std::fma(column[l], d[i + l], lanes[c][l]);
        }
      }
    }
    for (int64_t c = 0; c < kColumnGroup; ++c) {
      const T* column = x + (j0 + c) * stride;
      for (int64_t l = 0; i + l < rows; ++l) {
        lanes[c][l] = std::fma(column[i + l], d[i + l], lanes[c][l]);
      }
      share[j0 + c] = sum_lanes(lanes[c]);
    }
  }
  for (int64_t j = j0; j < cols; ++j) share[j] = lane_dot(x + j * stride, d, rows);
}

template <class T>
NDBUF_MATVEC_CLONES void block_shares_cols_contiguous(const T* x, int64_t stride, int64_t rows,
                                                      int64_t cols, const T* d, T* share) {
  std::fill(share, share + cols, T{0});
  for (int64_t i = 0; i < rows; ++i) {
    const T* row = x + i * stride;
    const T weight = d[i];
#pragma omp simd
    for (int64_t j = 0; j < cols; ++j) share[j] = std::fma(row[j], weight, share[j]);
  }
}

#define NDBUF_MATVEC_BLOCKS(T)                                                                   \
  template void block_products_rows_contiguous<T>(const T*, int64_t, int64_t, int64_t, const T*, \
                                                  T*);                                           \
  template void block_products_cols_contiguous<T>(const T*, int64_t, int64_t, int64_t, const T*, \
                                                  T*);                                           \
  template void block_shares_rows_contiguous<T>(const T*, int64_t, int64_t, int64_t, const T*,   \
                                                T*);                                             \
  template void block_shares_cols_contiguous<T>(const T*, int64_t, int64_t, int64_t, const T*, T*);
NDBUF_MATVEC_BLOCKS(float)
NDBUF_MATVEC_BLOCKS(double)
#undef NDBUF_MATVEC_BLOCKS

}  // namespace ndbuf::program
