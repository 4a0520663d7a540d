// The AVX2 lane folds of fold_lanes.hpp. This file alone is compiled with -mavx2 (where the
// compiler takes it) and runs only on CPUs that have AVX2. It uses intrinsics and its own
// functions only: no template the baseline files also instantiate, so no AVX2 code can stand in
// for theirs at link time. Without FMA every lane rounds as the baseline's scalar fold does.
#include "program/kernels/fold_lanes.hpp"

#if defined(__AVX2__)
#include <immintrin.h>

namespace ndbuf::program::detail {
namespace {

// maximum and minimum as fast_combine.hpp's max_values / min_values, lane by lane: a NaN
// accumulator stays; else a NaN element wins; else the larger (smaller) one, the accumulator
// on ties (so -0 and +0 keep the one already there).
__m256 pick_ps(__m256 acc, __m256 x, bool maximum) {
  const __m256 better =
      maximum ? _mm256_cmp_ps(acc, x, _CMP_LT_OQ) : _mm256_cmp_ps(x, acc, _CMP_LT_OQ);
  const __m256 picked = _mm256_blendv_ps(acc, x, better);
  const __m256 acc_nan = _mm256_cmp_ps(acc, acc, _CMP_UNORD_Q);
  const __m256 x_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_ps(picked, x, _mm256_andnot_ps(acc_nan, x_nan));
}

__m256d pick_pd(__m256d acc, __m256d x, bool maximum) {
  const __m256d better =
      maximum ? _mm256_cmp_pd(acc, x, _CMP_LT_OQ) : _mm256_cmp_pd(x, acc, _CMP_LT_OQ);
  const __m256d picked = _mm256_blendv_pd(acc, x, better);
  const __m256d acc_nan = _mm256_cmp_pd(acc, acc, _CMP_UNORD_Q);
  const __m256d x_nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_pd(picked, x, _mm256_andnot_pd(acc_nan, x_nan));
}

template <FastBody B>
__m256 combine_ps(__m256 acc, __m256 x) {
  if constexpr (B == FastBody::kAdd) return _mm256_add_ps(acc, x);
  if constexpr (B == FastBody::kMultiply) return _mm256_mul_ps(acc, x);
  if constexpr (B == FastBody::kMaximum) return pick_ps(acc, x, true);
  if constexpr (B == FastBody::kMinimum) return pick_ps(acc, x, false);
  return acc;
}

template <FastBody B>
__m256d combine_pd(__m256d acc, __m256d x) {
  if constexpr (B == FastBody::kAdd) return _mm256_add_pd(acc, x);
  if constexpr (B == FastBody::kMultiply) return _mm256_mul_pd(acc, x);
  if constexpr (B == FastBody::kMaximum) return pick_pd(acc, x, true);
  if constexpr (B == FastBody::kMinimum) return pick_pd(acc, x, false);
  return acc;
}

// 16 f32 lanes in two registers.
template <FastBody B>
int64_t fold_ps(const float* x, int64_t n, float* lanes) {
  __m256 low = _mm256_loadu_ps(lanes);
  __m256 high = _mm256_loadu_ps(lanes + 8);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    low = combine_ps<B>(low, _mm256_loadu_ps(x + j));
    high = combine_ps<B>(high, _mm256_loadu_ps(x + j + 8));
  }
  _mm256_storeu_ps(lanes, low);
  _mm256_storeu_ps(lanes + 8, high);
  return j;
}

// 8 f64 lanes in two registers.
template <FastBody B>
int64_t fold_pd(const double* x, int64_t n, double* lanes) {
  __m256d low = _mm256_loadu_pd(lanes);
  __m256d high = _mm256_loadu_pd(lanes + 4);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    low = combine_pd<B>(low, _mm256_loadu_pd(x + j));
    high = combine_pd<B>(high, _mm256_loadu_pd(x + j + 4));
  }
  _mm256_storeu_pd(lanes, low);
  _mm256_storeu_pd(lanes + 4, high);
  return j;
}

// maximum / minimum of four rows while no element is NaN: _mm256_max_ps(x, acc) is
// x > acc ? x : acc (min: x < acc ? x : acc), which is pick_ps's answer unless x is NaN, in one
// instruction instead of six. False when an element was NaN (the lanes are then unspecified).
template <FastBody B>
bool fold_ps_rows_without_nan(const float* x, int64_t stride, int64_t n, float* lanes) {
  __m256 acc[8];
  __m256 nan = _mm256_setzero_ps();
  for (int k = 0; k < 8; ++k) acc[k] = _mm256_loadu_ps(lanes + 8 * k);
  for (int64_t j = 0; j + 16 <= n; j += 16) {
    for (int k = 0; k < 8; ++k) {
      const __m256 v = _mm256_loadu_ps(x + (k / 2) * stride + j + 8 * (k % 2));
      acc[k] = B == FastBody::kMaximum ? _mm256_max_ps(v, acc[k]) : _mm256_min_ps(v, acc[k]);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
  }
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(lanes + 8 * k, acc[k]);
  return _mm256_movemask_ps(nan) == 0;
}

// Four rows at once, `stride` elements apart: four independent chains hide the latency of
// each lane's one chain of adds (or picks), and every row's lanes fold as fold_ps's do.
template <FastBody B>
int64_t fold_ps_rows(const float* x, int64_t stride, int64_t n, float* lanes) {
  if constexpr (B == FastBody::kMaximum || B == FastBody::kMinimum) {
    float start[64];
    for (int k = 0; k < 64; ++k) start[k] = lanes[k];
    if (fold_ps_rows_without_nan<B>(x, stride, n, lanes)) return n / 16 * 16;
    for (int k = 0; k < 64; ++k) lanes[k] = start[k];
  }
  __m256 acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = _mm256_loadu_ps(lanes + 8 * k);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    for (int r = 0; r < 4; ++r) {
      const float* row = x + r * stride + j;
      acc[2 * r] = combine_ps<B>(acc[2 * r], _mm256_loadu_ps(row));
      acc[2 * r + 1] = combine_ps<B>(acc[2 * r + 1], _mm256_loadu_ps(row + 8));
    }
  }
  for (int k = 0; k < 8; ++k) _mm256_storeu_ps(lanes + 8 * k, acc[k]);
  return j;
}

template <FastBody B>
int64_t fold_pd_rows(const double* x, int64_t stride, int64_t n, double* lanes) {
  __m256d acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = _mm256_loadu_pd(lanes + 4 * k);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int r = 0; r < 4; ++r) {
      const double* row = x + r * stride + j;
      acc[2 * r] = combine_pd<B>(acc[2 * r], _mm256_loadu_pd(row));
      acc[2 * r + 1] = combine_pd<B>(acc[2 * r + 1], _mm256_loadu_pd(row + 4));
    }
  }
  for (int k = 0; k < 8; ++k) _mm256_storeu_pd(lanes + 4 * k, acc[k]);
  return j;
}

}  // namespace

bool fold_lanes_avx2_usable() {
  static const bool usable = __builtin_cpu_supports("avx2");
  return usable;
}

int64_t fold_lanes_f32_avx2(FastBody body, const float* x, int64_t n, float* lanes) {
  switch (body) {
    case FastBody::kAdd:
      return fold_ps<FastBody::kAdd>(x, n, lanes);
    case FastBody::kMultiply:
      return fold_ps<FastBody::kMultiply>(x, n, lanes);
    case FastBody::kMaximum:
      return fold_ps<FastBody::kMaximum>(x, n, lanes);
    case FastBody::kMinimum:
      return fold_ps<FastBody::kMinimum>(x, n, lanes);
    default:
      return 0;
  }
}

int64_t fold_lanes_f64_avx2(FastBody body, const double* x, int64_t n, double* lanes) {
  switch (body) {
    case FastBody::kAdd:
      return fold_pd<FastBody::kAdd>(x, n, lanes);
    case FastBody::kMultiply:
      return fold_pd<FastBody::kMultiply>(x, n, lanes);
    case FastBody::kMaximum:
      return fold_pd<FastBody::kMaximum>(x, n, lanes);
    case FastBody::kMinimum:
      return fold_pd<FastBody::kMinimum>(x, n, lanes);
    default:
      return 0;
  }
}

int64_t fold_four_rows_f32_avx2(FastBody body, const float* x, int64_t stride, int64_t n,
                                float* lanes) {
  switch (body) {
    case FastBody::kAdd:
      return fold_ps_rows<FastBody::kAdd>(x, stride, n, lanes);
    case FastBody::kMultiply:
      return fold_ps_rows<FastBody::kMultiply>(x, stride, n, lanes);
    case FastBody::kMaximum:
      return fold_ps_rows<FastBody::kMaximum>(x, stride, n, lanes);
    case FastBody::kMinimum:
      return fold_ps_rows<FastBody::kMinimum>(x, stride, n, lanes);
    default:
      return 0;
  }
}

int64_t fold_four_rows_f64_avx2(FastBody body, const double* x, int64_t stride, int64_t n,
                                double* lanes) {
  switch (body) {
    case FastBody::kAdd:
      return fold_pd_rows<FastBody::kAdd>(x, stride, n, lanes);
    case FastBody::kMultiply:
      return fold_pd_rows<FastBody::kMultiply>(x, stride, n, lanes);
    case FastBody::kMaximum:
      return fold_pd_rows<FastBody::kMaximum>(x, stride, n, lanes);
    case FastBody::kMinimum:
      return fold_pd_rows<FastBody::kMinimum>(x, stride, n, lanes);
    default:
      return 0;
  }
}

}  // namespace ndbuf::program::detail

#else

namespace ndbuf::program::detail {

bool fold_lanes_avx2_usable() { return false; }

// Not called while fold_lanes_avx2_usable() is false; they fold nothing if they were.
int64_t fold_lanes_f32_avx2(FastBody, const float*, int64_t, float*) { return 0; }
int64_t fold_lanes_f64_avx2(FastBody, const double*, int64_t, double*) { return 0; }
int64_t fold_four_rows_f32_avx2(FastBody, const float*, int64_t, int64_t, float*) { return 0; }
int64_t fold_four_rows_f64_avx2(FastBody, const double*, int64_t, int64_t, double*) { return 0; }

}  // namespace ndbuf::program::detail

#endif
