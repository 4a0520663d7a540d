// The vector loop of a reduction's row fold (reduce_fast.cpp's fold_run) for f32 and f64 in
// AVX2 registers: the baseline build keeps the fold's lanes in memory (GCC at -O2 does not
// promote the lane array), one store-to-load round trip per step. Lane l still folds elements
// l, l + L, l + 2L, ... in order, so the result is the baseline's, bit for bit.
#pragma once

#include <cstdint>

#include "program/kernels/region_body.hpp"

namespace ndbuf::program::detail {

// Whether this build has the AVX2 folds and this CPU runs them.
bool fold_lanes_avx2_usable();

// Folds x[0, j) into `lanes` (16 for f32, 8 for f64, read and written) for the largest j <= n
// that is a multiple of the lane count, and returns j: lanes[l] = combine(lanes[l], x[j + l]).
// Returns 0, leaving `lanes` alone, for a body other than add, multiply, maximum, minimum.
// Call only while fold_lanes_avx2_usable().
int64_t fold_lanes_avx2(FastBody body, const float* x, int64_t n, float* lanes);
int64_t fold_lanes_avx2(FastBody body, const double* x, int64_t n, double* lanes);

// The same for four rows of n elements, row r at x + r * stride, its lanes at lanes + r * L:
// each row's lanes as the one-row fold leaves them (four chains in flight instead of one).
int64_t fold_four_rows_avx2(FastBody body, const float* x, int64_t stride, int64_t n, float* lanes);
int64_t fold_four_rows_avx2(FastBody body, const double* x, int64_t stride, int64_t n,
                            double* lanes);

}  // namespace ndbuf::program::detail
