// select_scatter_f32.hpp on AVX2, through the target attribute so that the rest of the package
// stays on the baseline ISA; callers check select_scatter_f32_available() first.
#include "program/ops/reduction/select_scatter_f32.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NDBUF_SELECT_SCATTER_AVX2 1
#include <immintrin.h>
#endif

namespace ndbuf::program {

#ifdef NDBUF_SELECT_SCATTER_AVX2

namespace {

// kGroups groups of eight lanes of one window, side by side so that their folds' dependency
// chains (a compare and a blend per element) overlap: the fold keeps each lane's pick and which
// element it is in registers, then a masked add goes into every element's position (no branch
// on whether a lane picked it: a max-pool's picks are random, and mispredictions cost more than
// the adds).
template <int kPredicate, int kGroups>
__attribute__((target("avx2"))) inline void scatter_groups(const float* x, const float* source,
                                                           float* result, const int64_t* offsets,
                                                           int32_t count) {
  __m256 best[kGroups];
  __m256i kept[kGroups];
#pragma GCC unroll 4
  for (int g = 0; g < kGroups; ++g) {
    best[g] = _mm256_loadu_ps(x + offsets[0] + 8 * g);
    kept[g] = _mm256_setzero_si256();
  }
  for (int32_t k = 1; k < count; ++k) {
    const __m256 element = _mm256_castsi256_ps(_mm256_set1_epi32(k));
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const __m256 next = _mm256_loadu_ps(x + offsets[k] + 8 * g);
      const __m256 stay = _mm256_cmp_ps(best[g], next, kPredicate);
      best[g] = _mm256_blendv_ps(next, best[g], stay);
      kept[g] = _mm256_castps_si256(_mm256_blendv_ps(element, _mm256_castsi256_ps(kept[g]), stay));
    }
  }
  for (int32_t k = 0; k < count; ++k) {
    const __m256i element = _mm256_set1_epi32(k);
    float* at = result + offsets[k];
#pragma GCC unroll 4
    for (int g = 0; g < kGroups; ++g) {
      const __m256 picked = _mm256_castsi256_ps(_mm256_cmpeq_epi32(kept[g], element));
      const __m256 old = _mm256_loadu_ps(at + 8 * g);
      const __m256 sum = _mm256_add_ps(old, _mm256_loadu_ps(source + 8 * g));
      _mm256_storeu_ps(at + 8 * g, _mm256_blendv_ps(old, sum, picked));
    }
  }
}

template <int kPredicate>
__attribute__((target("avx2"))) void scatter_lanes(const float* x, const float* source,
                                                   float* result, const int64_t* offsets,
                                                   int32_t count, int64_t lanes) {
  int64_t j = 0;
  for (; j + 32 <= lanes; j += 32) {
    scatter_groups<kPredicate, 4>(x + j, source + j, result + j, offsets, count);
  }
  for (; j < lanes; j += 8) {
    scatter_groups<kPredicate, 1>(x + j, source + j, result + j, offsets, count);
  }
}

}  // namespace

bool select_scatter_f32_available() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

// The ordered predicates are IEEE comparison: false when either side is NaN.
void select_scatter_f32(const float* x, const float* source, float* result, const int64_t* offsets,
                        int32_t count, int64_t lanes, ComparatorOrder direction) {
  switch (direction) {
    case ComparatorOrder::kLessThan:
      return scatter_lanes<_CMP_LT_OQ>(x, source, result, offsets, count, lanes);
    case ComparatorOrder::kLessEqual:
      return scatter_lanes<_CMP_LE_OQ>(x, source, result, offsets, count, lanes);
    case ComparatorOrder::kGreaterThan:
      return scatter_lanes<_CMP_GT_OQ>(x, source, result, offsets, count, lanes);
    default:
      return scatter_lanes<_CMP_GE_OQ>(x, source, result, offsets, count, lanes);
  }
}

#else

bool select_scatter_f32_available() { return false; }

void select_scatter_f32(const float*, const float*, float*, const int64_t*, int32_t, int64_t,
                        ComparatorOrder) {}

#endif

}  // namespace ndbuf::program
