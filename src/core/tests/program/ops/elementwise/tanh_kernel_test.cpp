// f32 tanh: the AVX2 build agrees bit for bit with the baseline one (fused and unfused runs,
// and machines with and without AVX2, give the same results), tails included; special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "program/ops/elementwise/tanh_avx2.hpp"
#include "tests/program/ops/elementwise/float_patterns.hpp"

namespace ndbuf::program::detail {
namespace {

TEST(TanhKernel, AvxAgreesWithTheBaselineOnSpreadBitPatterns) {
  if (!tanh_avx2_usable()) GTEST_SKIP() << "no AVX2 build or CPU";
  const std::vector<float> x =
      program::testing::spread_float_patterns(1021);  // NaNs, infinities, subnormals too
  std::vector<float> fast(x.size()), base(x.size());
  tanh_span_f32_avx2(x.data(), fast.data(), static_cast<int64_t>(x.size()));
  tanh_span_f32_baseline(x.data(), base.data(), static_cast<int64_t>(x.size()));
  int64_t differ = 0;
  for (size_t i = 0; i < x.size(); ++i) differ += std::memcmp(&fast[i], &base[i], 4) != 0;
  EXPECT_EQ(differ, 0) << "of " << x.size();
}

// Every tail length of a packet, at unaligned starts, written in place and out of place.
TEST(TanhKernel, TailsAndInPlaceSpans) {
  if (!tanh_avx2_usable()) GTEST_SKIP() << "no AVX2 build or CPU";
  std::vector<float> x(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -3.0f + 0.17f * static_cast<float>(i);
  for (int64_t start = 0; start < 3; ++start) {
    for (int64_t n = 0; n <= 17; ++n) {
      std::vector<float> base(x.size(), 7.0f), fast(x.size(), 7.0f), in_place(x);
      tanh_span_f32_baseline(x.data() + start, base.data() + start, n);
      tanh_span_f32_avx2(x.data() + start, fast.data() + start, n);
      tanh_span_f32_avx2(in_place.data() + start, in_place.data() + start, n);
      for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
        const bool inside = i >= start && i < start + n;
        ASSERT_EQ(fast[i], inside ? base[i] : 7.0f) << start << " " << n << " " << i;
        ASSERT_EQ(in_place[i], inside ? base[i] : x[i]) << start << " " << n << " " << i;
      }
    }
  }
}

TEST(TanhKernel, SpecialValuesAndAccuracy) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {0.0f, -0.0f, inf, -inf, std::nanf(""), 1.0f, -0.5f, 20.0f, 1e-30f};
  std::vector<float> y(x.size());
  tanh_span_f32(x.data(), y.data(), static_cast<int64_t>(x.size()));
  EXPECT_TRUE(y[0] == 0 && !std::signbit(y[0]));
  EXPECT_TRUE(y[1] == 0 && std::signbit(y[1]));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], -1.0f);
  EXPECT_TRUE(std::isnan(y[4]));
  EXPECT_NEAR(y[5], std::tanh(1.0), 2e-7);
  EXPECT_NEAR(y[6], std::tanh(-0.5), 2e-7);
  EXPECT_EQ(y[7], 1.0f);
  EXPECT_EQ(y[8], 1e-30f);
}

}  // namespace
}  // namespace ndbuf::program::detail
