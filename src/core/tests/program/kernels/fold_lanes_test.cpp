// The AVX2 lane folds (fold_lanes.hpp), of one row and of four, against a scalar lane fold
// written here from the rules reductions follow (fast_combine.hpp): the same lane values, bit
// for bit, for every body, with NaNs of different payloads, signed zeros and infinities, at
// every length up to three runs.
#include "program/kernels/fold_lanes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ndbuf::program::detail {
namespace {

template <class T>
T nan_with(uint64_t payload) {
  if constexpr (sizeof(T) == 4) {
    const uint32_t bits = 0x7FC00000u | static_cast<uint32_t>(payload & 0x3FFFFF);
    T f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  } else {
    const uint64_t bits = 0x7FF8000000000000ull | (payload & 0xFFFFFFFFFull);
    T f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
}

// One fold step: an accumulator that is NaN stays, else a NaN element wins, else the larger
// (smaller) value, the accumulator on ties.
template <class T>
T step(FastBody body, T acc, T x) {
  switch (body) {
    case FastBody::kAdd:
      return acc + x;
    case FastBody::kMultiply:
      return acc * x;
    default: {
      if (std::isnan(acc)) return acc;
      if (std::isnan(x)) return x;
      const bool better = body == FastBody::kMaximum ? acc < x : x < acc;
      return better ? x : acc;
    }
  }
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Values from [-3, 3); with `specials`, also NaNs (unless `nan` is false), signed zeros and
// infinities.
template <class T>
std::vector<T> sample(std::mt19937& rng, int64_t n, bool specials, bool nan = true) {
  std::uniform_real_distribution<double> value(-3, 3);
  std::uniform_int_distribution<int> pick(nan ? 0 : 1, 15);
  std::vector<T> x(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const int p = specials ? pick(rng) : 15;
    const T inf = std::numeric_limits<T>::infinity();
    x[k] = p == 0   ? nan_with<T>(static_cast<uint64_t>(k + 1))
           : p == 1 ? T(0)
           : p == 2 ? T(-0.0)
           : p == 3 ? inf
           : p == 4 ? -inf
                    : static_cast<T>(value(rng));
  }
  return x;
}

template <class T, int kLanes>
void check_folds(int64_t (*fold)(FastBody, const T*, int64_t, T*)) {
  if (!fold_lanes_avx2_usable()) GTEST_SKIP() << "this CPU or build has no AVX2 folds";
  std::mt19937 rng(41);
  for (FastBody body :
       {FastBody::kAdd, FastBody::kMultiply, FastBody::kMaximum, FastBody::kMinimum}) {
    for (bool specials : {false, true}) {
      for (int64_t n = 0; n <= 3 * kLanes + 1; ++n) {
        const std::vector<T> x = sample<T>(rng, n, specials);
        std::vector<T> start = sample<T>(rng, kLanes, specials);
        std::vector<T> lanes = start;
        const int64_t done = fold(body, x.data(), n, lanes.data());
        ASSERT_EQ(done, n / kLanes * kLanes) << n;
        for (int64_t j = 0; j < done; j += kLanes) {
          for (int l = 0; l < kLanes; ++l) start[l] = step(body, start[l], x[j + l]);
        }
        EXPECT_TRUE(same_bits(lanes, start))
            << "body " << static_cast<int>(body) << ", n " << n << ", specials " << specials;
      }
    }
  }
}

// Four rows `stride` apart: each row's lanes as the scalar fold leaves them.
template <class T, int kLanes>
void check_four_rows(int64_t (*fold)(FastBody, const T*, int64_t, int64_t, T*)) {
  if (!fold_lanes_avx2_usable()) GTEST_SKIP() << "this CPU or build has no AVX2 folds";
  std::mt19937 rng(43);
  for (FastBody body :
       {FastBody::kAdd, FastBody::kMultiply, FastBody::kMaximum, FastBody::kMinimum}) {
    for (int64_t n : {int64_t{0}, int64_t{kLanes - 1}, int64_t{kLanes}, int64_t{5 * kLanes + 3}}) {
      for (bool nan : {false, true}) {
        const int64_t stride = n + 7;
        // Without NaNs maximum and minimum take a quicker path; signed zeros still tie.
        const std::vector<T> x = sample<T>(rng, 4 * stride, true, nan);
        std::vector<T> expect = sample<T>(rng, 4 * kLanes, true, nan);
        std::vector<T> lanes = expect;
        const int64_t done = fold(body, x.data(), stride, n, lanes.data());
        ASSERT_EQ(done, n / kLanes * kLanes) << n;
        for (int r = 0; r < 4; ++r) {
          for (int64_t j = 0; j < done; j += kLanes) {
            for (int l = 0; l < kLanes; ++l) {
              expect[r * kLanes + l] = step(body, expect[r * kLanes + l], x[r * stride + j + l]);
            }
          }
        }
        EXPECT_TRUE(same_bits(lanes, expect))
            << "body " << static_cast<int>(body) << ", n " << n << ", NaNs " << nan;
      }
    }
  }
}

// A NaN already in a lane stays there, payload and all, when no element is NaN.
TEST(FoldLanes, FourRowsKeepANanLaneThroughNumbers) {
  if (!fold_lanes_avx2_usable()) GTEST_SKIP() << "this CPU or build has no AVX2 folds";
  const std::vector<float> x(4 * 32, 1.5f);
  for (FastBody body : {FastBody::kMaximum, FastBody::kMinimum}) {
    std::vector<float> lanes(64, 0.0f);
    lanes[19] = nan_with<float>(19);
    ASSERT_EQ(fold_four_rows_avx2(body, x.data(), 32, 32, lanes.data()), 32);
    std::vector<float> expect(64, body == FastBody::kMaximum ? 1.5f : 0.0f);
    expect[19] = nan_with<float>(19);
    EXPECT_TRUE(same_bits(lanes, expect)) << static_cast<int>(body);
  }
}

TEST(FoldLanes, FourRowsOfF32MatchTheScalarFoldBitForBit) {
  check_four_rows<float, 16>(&fold_four_rows_avx2);
}

TEST(FoldLanes, FourRowsOfF64MatchTheScalarFoldBitForBit) {
  check_four_rows<double, 8>(&fold_four_rows_avx2);
}

TEST(FoldLanes, F32LanesMatchTheScalarFoldBitForBit) { check_folds<float, 16>(&fold_lanes_avx2); }

TEST(FoldLanes, F64LanesMatchTheScalarFoldBitForBit) { check_folds<double, 8>(&fold_lanes_avx2); }

TEST(FoldLanes, OtherBodiesFoldNothing) {
  if (!fold_lanes_avx2_usable()) GTEST_SKIP() << "this CPU or build has no AVX2 folds";
  std::vector<float> x(64, 1.0f), lanes(16, 2.0f);
  EXPECT_EQ(fold_lanes_avx2(FastBody::kReplace, x.data(), 64, lanes.data()), 0);
  EXPECT_EQ(lanes, std::vector<float>(16, 2.0f));
}

}  // namespace
}  // namespace ndbuf::program::detail
