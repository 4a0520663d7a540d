// Tests of chlo.top_k: order, ties, NaN, k = 0 and bad k.
#include "program/ops/sort/top_k.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ndbuf/base/error.hpp"
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

TEST(ProgramTopK, ZeroKAndErrors) {
  EXPECT_EQ(top_k(i32({2, 3}, {1, 2, 3, 4, 5, 6}), 0)[0].shape(), (Shape{2, 0}));
  EXPECT_THROW(top_k(i32({3}, {1, 2, 3}), 4), Error);
  EXPECT_THROW(top_k(i32({3}, {1, 2, 3}), -1), Error);
  EXPECT_THROW(top_k(i32({}, {1}), 0), Error);
  EXPECT_THROW(top_k(tensor_of<std::complex<float>>(DType::kC64, {1}, {{1, 1}}), 1), Error);
}

}  // namespace
}  // namespace ndbuf::program
