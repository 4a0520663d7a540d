// Tests of chlo.top_k: order, ties, NaN, k = 0 and bad k.
#include "program/ops/sort/top_k.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "ndbuf/base/error.hpp"
#include "program/ops/sort/order_keys.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

TEST(ProgramTopK, LargestFirstTiesKeepLowerIndex) {
  const auto r = top_k(i32({2, 4}, {1, 3, 2, 3, -5, -1, -7, -1}), 3);
  EXPECT_EQ(r[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(r[1].dtype(), DType::kI32);
  EXPECT_EQ(values<int32_t>(r[0]), (std::vector<int32_t>{3, 3, 2, -1, -1, -5}));
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{1, 3, 2, 1, 3, 0}));
}

TEST(ProgramTopK, NaNRanksFirstAndStridedInput) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = top_k(f32({3}, {1, nan, 5}), 2);
  const auto v = values<float>(r[0]);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 5);
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{1, 2}));
  const auto s = top_k(column_major(f64({2, 2}, {1, 2, 4, 3})), 1);
  EXPECT_EQ(values<double>(s[0]), (std::vector<double>{2, 4}));
  EXPECT_EQ(values<int32_t>(s[1]), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(half_values(top_k(bf16({3}, {0.5, 8, -2}), 2)[0]), (std::vector<double>{8, 0.5}));
}

// Against a stable sort of each row (value descending in total order, position ascending), on
// rows with many ties and NaNs of both signs, in row-major, column-major and 3-d layouts, rows
// enough for threads.
TEST(ProgramTopK, MatchesAStableSortOfEachRow) {
  std::mt19937 rng(29);
  const float pool[] = {-2,
                        -0.0F,
                        0,
                        1,
                        3,
                        std::numeric_limits<float>::infinity(),
                        std::numeric_limits<float>::quiet_NaN(),
                        -std::numeric_limits<float>::quiet_NaN()};
  struct Case {
    Shape shape;
    int64_t k;
  };
  for (const Case& c : {Case{{600, 1000}, 10}, Case{{7, 5, 40}, 40}, Case{{33, 1}, 1},
                        Case{{64, 300}, 1}, Case{{3, 50}, 49}}) {
    std::vector<float> v(static_cast<size_t>(checked_numel(c.shape)));
    for (float& e : v) e = pool[rng() % 8];
    const int64_t length = c.shape.back(), rows = checked_numel(c.shape) / length;
    std::vector<float> want_values;
    std::vector<int32_t> want_indices;
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<int32_t> order(static_cast<size_t>(length));
      std::iota(order.begin(), order.end(), 0);
      const float* row = v.data() + r * length;
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return total_order_key(row[a]) > total_order_key(row[b]);
      });
      for (int64_t i = 0; i < c.k; ++i) {
        want_indices.push_back(order[static_cast<size_t>(i)]);
        want_values.push_back(row[order[static_cast<size_t>(i)]]);
      }
    }
    const Tensor x = f32(c.shape, v);
    for (const Tensor& input : {x, column_major(x)}) {
      const auto r = top_k(input, c.k);
      EXPECT_EQ(values<int32_t>(r[1]), want_indices);
      const std::vector<float> got = values<float>(r[0]);
      ASSERT_EQ(got.size(), want_values.size());
      EXPECT_EQ(std::memcmp(got.data(), want_values.data(), got.size() * sizeof(float)), 0);
    }
  }
}

// Positions of each row's k largest by a stable sort (descending, lower position first on ties).
template <class T>
std::vector<int32_t> stable_top_positions(const std::vector<T>& v, int64_t rows, int64_t length,
                                          int64_t k) {
  std::vector<int32_t> want;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> order(static_cast<size_t>(length));
    std::iota(order.begin(), order.end(), 0);
    const T* row = v.data() + r * length;
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return row[a] > row[b]; });
    want.insert(want.end(), order.begin(), order.begin() + k);
  }
  return want;
}

// Rows of a column-major operand are walked side by side in groups, the rest (and other layouts)
// one by one: row counts around the group size, distinct and tied values, several dtypes.
TEST(ProgramTopK, ColumnMajorRowsSideBySideMatchAStableSort) {
  std::mt19937 rng(41);
  for (const int64_t rows : {15, 16, 17, 37, 600}) {
    const int64_t length = 700, k = 7;
    std::vector<double> d(static_cast<size_t>(rows * length));
    std::vector<int32_t> n(d.size());
    for (size_t i = 0; i < d.size(); ++i) {
      d[i] = std::ldexp(static_cast<double>(rng() % 100000), -7) - 300;
      n[i] = static_cast<int32_t>(rng() % 50) - 25;  // many ties
    }
    const auto want_d = stable_top_positions(d, rows, length, k);
    const auto want_n = stable_top_positions(n, rows, length, k);
    for (const bool columns : {true, false}) {
      const Tensor x = f64({rows, length}, d), y = i32({rows, length}, n);
      const auto rd = top_k(columns ? column_major(x) : x, k);
      const auto rn = top_k(columns ? column_major(y) : y, k);
      EXPECT_EQ(values<int32_t>(rd[1]), want_d) << rows << " rows, column-major " << columns;
      EXPECT_EQ(values<int32_t>(rn[1]), want_n) << rows << " rows, column-major " << columns;
      std::vector<double> top_d;
      std::vector<int32_t> top_n;
      for (size_t i = 0; i < want_d.size(); ++i) {
        const auto row = static_cast<int64_t>(i) / k;
        top_d.push_back(d[static_cast<size_t>(row * length + want_d[i])]);
        top_n.push_back(n[static_cast<size_t>(row * length + want_n[i])]);
      }
      EXPECT_EQ(values<double>(rd[0]), top_d);
      EXPECT_EQ(values<int32_t>(rn[0]), top_n);
    }
  }
}

TEST(ProgramTopK, ZeroKAndErrors) {
  EXPECT_EQ(top_k(i32({2, 3}, {1, 2, 3, 4, 5, 6}), 0)[0].shape(), (Shape{2, 0}));
  EXPECT_THROW(top_k(i32({3}, {1, 2, 3}), 4), Error);
  EXPECT_THROW(top_k(i32({3}, {1, 2, 3}), -1), Error);
  EXPECT_THROW(top_k(i32({}, {1}), 0), Error);
  EXPECT_THROW(top_k(tensor_of<std::complex<float>>(DType::kC64, {1}, {{1, 1}}), 1), Error);
}

}  // namespace
}  // namespace ndbuf::program
