// Tests of sort: fast and region comparators, stability, total order and NaN, bad comparators.
#include "program/ops/sort/sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

const FastComparator kLess{ComparatorOrder::kLessThan, false};
const FastComparator kGreater{ComparatorOrder::kGreaterThan, false};

TEST(ProgramSort, OneOperandFastAndThroughTheRegion) {
  const Tensor x = i32({5}, {3, -1, 2, 7, 0});
  const std::vector<int32_t> up = {-1, 0, 2, 3, 7};
  EXPECT_EQ(values<int32_t>(sort({x}, 0, true, nullptr, kLess)[0]), up);
  const auto less = comparator_region<int32_t>([](int32_t a, int32_t b) { return a < b; });
  EXPECT_EQ(values<int32_t>(sort({x}, 0, false, less)[0]), up);
  EXPECT_EQ(values<int32_t>(sort({x}, 0, true, nullptr, kGreater)[0]),
            (std::vector<int32_t>{7, 3, 2, 0, -1}));
}

TEST(ProgramSort, TwoOperandsAlongDimZeroAreStable) {
  // Column 0 keys 2, 2, 1 sorted descending keep rows 0, 1 in order; column 1 keys 1, 3, 3.
  const Tensor keys = i64({3, 2}, {2, 1, 2, 3, 1, 3});
  const Tensor payload = i64({3, 2}, {10, 20, 30, 40, 50, 60});
  for (bool fast : {true, false}) {
    const auto gt = comparator_region<int64_t>([](int64_t a, int64_t b) { return a > b; });
    const auto r = fast ? sort({keys, payload}, 0, true, nullptr, kGreater)
                        : sort({keys, column_major(payload)}, 0, true, gt);
    EXPECT_EQ(values<int64_t>(r[0]), (std::vector<int64_t>{2, 3, 2, 3, 1, 1}));
    EXPECT_EQ(values<int64_t>(r[1]), (std::vector<int64_t>{10, 40, 30, 60, 50, 20}));
  }
}

TEST(ProgramSort, AlongTheLastDimOfAStridedInput) {
  const Tensor x = column_major(f64({2, 3}, {3, 1, 2, -4, 6, 5}));
  EXPECT_EQ(values<double>(sort({x}, 1, true, nullptr, kLess)[0]),
            (std::vector<double>{1, 2, 3, -4, 5, 6}));
}

TEST(ProgramSort, TotalOrderPlacesNaNsAndSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = f32({6}, {nan, 1, -nan, 0.0f, -0.0f, -inf});
  const auto r = values<float>(sort({x}, 0, true, nullptr, {ComparatorOrder::kLessThan, true})[0]);
  EXPECT_TRUE(std::isnan(r[0]) && std::signbit(r[0]));
  EXPECT_EQ(r[1], -inf);
  EXPECT_TRUE(r[2] == 0 && std::signbit(r[2]));
  EXPECT_TRUE(r[3] == 0 && !std::signbit(r[3]));
  EXPECT_EQ(r[4], 1);
  EXPECT_TRUE(std::isnan(r[5]) && !std::signbit(r[5]));
  const Tensor h = f16({4}, {2, nan, -3, 0.5});
  const auto hr =
      half_values(sort({h}, 0, true, nullptr, {ComparatorOrder::kGreaterThan, true})[0]);
  EXPECT_TRUE(std::isnan(hr[0]));
  EXPECT_EQ(std::vector<double>(hr.begin() + 1, hr.end()), (std::vector<double>{2, 0.5, -3}));
}

// A multiset check: sorting only permutes.
template <class T>
void expect_permutation(std::vector<T> a, std::vector<T> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(ProgramSort, FloatComparatorWithNaNAndInconsistentRegionsStayPermutations) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = f32({5}, {3, nan, 1, nan, 2});
  const auto r = values<float>(sort({x}, 0, true, nullptr, kLess)[0]);
  EXPECT_EQ(std::count_if(r.begin(), r.end(), [](float v) { return std::isnan(v); }), 2);
  std::mt19937 rng(1);
  std::vector<int32_t> v(200);
  std::iota(v.begin(), v.end(), 0);
  const RegionFn coin = [&rng](const std::vector<Tensor>&) {
    return std::vector<Tensor>{pred({}, {static_cast<uint8_t>(rng() % 2)})};
  };
  expect_permutation(values<int32_t>(sort({i32({200}, v)}, 0, false, coin)[0]), v);
  const RegionFn always = [](const std::vector<Tensor>&) {
    return std::vector<Tensor>{pred({}, {1})};
  };
  expect_permutation(values<int32_t>(sort({i32({200}, v)}, 0, false, always)[0]), v);
}

TEST(ProgramSort, MatchesAStableReferenceOnRandomRows) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 10; ++trial) {
    const int64_t rows = 1 + rng() % 4, n = 1 + rng() % 40;
    std::vector<int32_t> keys(rows * n), pos(rows * n);
    for (auto& k : keys) k = static_cast<int32_t>(rng() % 6);
    for (int64_t i = 0; i < rows * n; ++i) pos[i] = static_cast<int32_t>(i % n);
    std::vector<int32_t> ek, ep;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<std::pair<int32_t, int32_t>> row;
      for (int64_t i = 0; i < n; ++i) row.push_back({keys[r * n + i], pos[r * n + i]});
      std::stable_sort(row.begin(), row.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      for (const auto& [k, p] : row) {
        ek.push_back(k);
        ep.push_back(p);
      }
    }
    const auto gt = comparator_region<int32_t>([](int32_t a, int32_t b) { return a > b; });
    const auto fast = sort({i32({rows, n}, keys), i32({rows, n}, pos)}, 1, true, nullptr, kGreater);
    const auto slow = sort({i32({rows, n}, keys), i32({rows, n}, pos)}, 1, true, gt);
    for (const auto& r : {fast, slow}) {
      EXPECT_EQ(values<int32_t>(r[0]), ek);
      EXPECT_EQ(values<int32_t>(r[1]), ep);
    }
  }
}

TEST(ProgramSort, EmptyInputsAndErrors) {
  EXPECT_EQ(sort({i32({2, 0}, {})}, 1, true, nullptr, kLess)[0].shape(), (Shape{2, 0}));
  EXPECT_THROW(sort({i32({}, {1})}, 0, true, nullptr, kLess), Error);
  EXPECT_THROW(sort({i32({2}, {1, 2})}, 1, true, nullptr, kLess), Error);
  EXPECT_THROW(sort({i32({2}, {1, 2}), i32({3}, {1, 2, 3})}, 0, true, nullptr, kLess), Error);
  EXPECT_THROW(sort({i32({2}, {1, 2})}, 0, true, nullptr), Error);
  const RegionFn not_pred = [](const std::vector<Tensor>&) {
    return std::vector<Tensor>{scalar_i32(1)};
  };
  EXPECT_THROW(sort({i32({2}, {1, 2})}, 0, true, not_pred), Error);
}

}  // namespace
}  // namespace ndbuf::program
