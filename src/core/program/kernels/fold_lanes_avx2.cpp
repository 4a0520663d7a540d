// The AVX2 lane folds of fold_lanes.hpp. This file alone is compiled with -mavx2 (where the
// compiler takes it) and runs only on CPUs that have AVX2. It uses intrinsics and its own
// functions only: no template the baseline files also instantiate, so no AVX2 code can stand in
// for theirs at link time. Without FMA every lane rounds as the baseline's scalar fold does.
#include "program/kernels/fold_lanes.hpp"

#if defined(__AVX2__)
#include <immintrin.h>

#include <type_traits>
#include <utility>

namespace ndbuf::program::detail {
namespace {

// One register of f32 or f64 lanes and the operations the folds use on it.
struct F32x8 {
  using T = float;
  using V = __m256;
  static constexpr int kWidth = 8;
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  static V less(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static V is_nan(V a) { return _mm256_cmp_ps(a, a, _CMP_UNORD_Q); }
  static V pick(V a, V b, V mask) { return _mm256_blendv_ps(a, b, mask); }
  static V and_not(V a, V b) { return _mm256_andnot_ps(a, b); }
  static V or_(V a, V b) { return _mm256_or_ps(a, b); }
  static V zero() { return _mm256_setzero_ps(); }
  static bool any(V mask) { return _mm256_movemask_ps(mask) != 0; }
};

struct F64x4 {
  using T = double;
  using V = __m256d;
  static constexpr int kWidth = 4;
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V max(V a, V b) { return _mm256_max_pd(a, b); }
  static V min(V a, V b) { return _mm256_min_pd(a, b); }
  static V less(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
  static V is_nan(V a) { return _mm256_cmp_pd(a, a, _CMP_UNORD_Q); }
  static V pick(V a, V b, V mask) { return _mm256_blendv_pd(a, b, mask); }
  static V and_not(V a, V b) { return _mm256_andnot_pd(a, b); }
  static V or_(V a, V b) { return _mm256_or_pd(a, b); }
  static V zero() { return _mm256_setzero_pd(); }
  static bool any(V mask) { return _mm256_movemask_pd(mask) != 0; }
};

// f(0), ..., f(N - 1) with constant indices, written out: a loop over the registers at -O2 kept
// the accumulators in memory, a store-to-load round trip per step.
template <class F, int... K>
void unrolled_each(F& f, std::integer_sequence<int, K...>) {
  (f(std::integral_constant<int, K>{}), ...);
}

template <int N, class F>
void unrolled(F f) {
  unrolled_each(f, std::make_integer_sequence<int, N>{});
}

// One fold step, lane by lane. maximum and minimum as fast_combine.hpp's max_values /
// min_values: a NaN accumulator stays; else a NaN element wins; else the larger (smaller) one,
// the accumulator on ties (so -0 and +0 keep the one already there).
template <class L, FastBody B>
typename L::V combine(typename L::V acc, typename L::V x) {
  if constexpr (B == FastBody::kAdd) {
    return L::add(acc, x);
  } else if constexpr (B == FastBody::kMultiply) {
    return L::mul(acc, x);
  } else {
    const auto better = B == FastBody::kMaximum ? L::less(acc, x) : L::less(x, acc);
    return L::pick(L::pick(acc, x, better), x, L::and_not(L::is_nan(acc), L::is_nan(x)));
  }
}

// maximum / minimum while no element is NaN: max(x, acc) is x > acc ? x : acc (min: x < acc ?
// x : acc), combine()'s answer unless x is NaN, in one instruction instead of six. False when an
// element was NaN (the lanes are then unspecified).
template <class L, FastBody B, int kRows>
bool fold_without_nan(const typename L::T* x, int64_t stride, int64_t n, typename L::T* lanes) {
  constexpr int kRegisters = 2 * kRows;
  typename L::V acc[kRegisters];
  auto nan = L::zero();
  for (int k = 0; k < kRegisters; ++k) acc[k] = L::load(lanes + L::kWidth * k);
  for (int64_t j = 0; j + 2 * L::kWidth <= n; j += 2 * L::kWidth) {
    unrolled<kRegisters>([&](auto k) {
      const auto v = L::load(x + (k / 2) * stride + j + L::kWidth * (k % 2));
      acc[k] = B == FastBody::kMaximum ? L::max(v, acc[k]) : L::min(v, acc[k]);
      nan = L::or_(nan, L::is_nan(v));
    });
  }
  for (int k = 0; k < kRegisters; ++k) L::store(lanes + L::kWidth * k, acc[k]);
  return !L::any(nan);
}

// kRows rows `stride` elements apart, each row's 2 * kWidth lanes in two registers: several
// rows keep several independent chains in flight, and every row's lanes fold as one row's do.
// Four rows of f32 try the one-instruction maximum / minimum first.
template <class L, FastBody B, int kRows>
int64_t fold_rows(const typename L::T* x, int64_t stride, int64_t n, typename L::T* lanes) {
  constexpr int kRegisters = 2 * kRows;
  constexpr bool kQuick = (B == FastBody::kMaximum || B == FastBody::kMinimum) && kRows == 4 &&
                          std::is_same_v<typename L::T, float>;
  if constexpr (kQuick) {
    typename L::T start[kRegisters * L::kWidth];
    for (int k = 0; k < kRegisters * L::kWidth; ++k) start[k] = lanes[k];
    if (fold_without_nan<L, B, kRows>(x, stride, n, lanes))
      return n / (2 * L::kWidth) * 2 * L::kWidth;
    for (int k = 0; k < kRegisters * L::kWidth; ++k) lanes[k] = start[k];
  }
  typename L::V acc[kRegisters];
  for (int k = 0; k < kRegisters; ++k) acc[k] = L::load(lanes + L::kWidth * k);
  int64_t j = 0;
  for (; j + 2 * L::kWidth <= n; j += 2 * L::kWidth) {
    unrolled<kRegisters>([&](auto k) {
      acc[k] = combine<L, B>(acc[k], L::load(x + (k / 2) * stride + j + L::kWidth * (k % 2)));
    });
  }
  for (int k = 0; k < kRegisters; ++k) L::store(lanes + L::kWidth * k, acc[k]);
  return j;
}

template <class L, int kRows>
int64_t fold_body(FastBody body, const typename L::T* x, int64_t stride, int64_t n,
                  typename L::T* lanes) {
  switch (body) {
    case FastBody::kAdd:
      return fold_rows<L, FastBody::kAdd, kRows>(x, stride, n, lanes);
    case FastBody::kMultiply:
      return fold_rows<L, FastBody::kMultiply, kRows>(x, stride, n, lanes);
    case FastBody::kMaximum:
      return fold_rows<L, FastBody::kMaximum, kRows>(x, stride, n, lanes);
    case FastBody::kMinimum:
      return fold_rows<L, FastBody::kMinimum, kRows>(x, stride, n, lanes);
    default:
      return 0;
  }
}

}  // namespace

bool fold_lanes_avx2_usable() {
  static const bool usable = __builtin_cpu_supports("avx2");
  return usable;
}

int64_t fold_lanes_avx2(FastBody body, const float* x, int64_t n, float* lanes) {
  return fold_body<F32x8, 1>(body, x, 0, n, lanes);
}

int64_t fold_lanes_avx2(FastBody body, const double* x, int64_t n, double* lanes) {
  return fold_body<F64x4, 1>(body, x, 0, n, lanes);
}

int64_t fold_four_rows_avx2(FastBody body, const float* x, int64_t stride, int64_t n,
                            float* lanes) {
  return fold_body<F32x8, 4>(body, x, stride, n, lanes);
}

int64_t fold_four_rows_avx2(FastBody body, const double* x, int64_t stride, int64_t n,
                            double* lanes) {
  return fold_body<F64x4, 4>(body, x, stride, n, lanes);
}

}  // namespace ndbuf::program::detail

#else

namespace ndbuf::program::detail {

bool fold_lanes_avx2_usable() { return false; }

// Not called while fold_lanes_avx2_usable() is false; they fold nothing if they were.
int64_t fold_lanes_avx2(FastBody, const float*, int64_t, float*) { return 0; }
int64_t fold_lanes_avx2(FastBody, const double*, int64_t, double*) { return 0; }
int64_t fold_four_rows_avx2(FastBody, const float*, int64_t, int64_t, float*) { return 0; }
int64_t fold_four_rows_avx2(FastBody, const double*, int64_t, int64_t, double*) { return 0; }

}  // namespace ndbuf::program::detail

#endif
