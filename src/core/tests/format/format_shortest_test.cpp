// Tests of shortest round-trip float text.
#include "ndbuf/format/format_shortest.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace ndbuf {
namespace {

std::string zeros(int n) { return std::string(static_cast<size_t>(n), '0'); }

float f32_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Expected texts were checked against Rust's `{}` formatting of the same values.
struct F64Case {
  double value;
  std::string text;
};

TEST(FormatShortest, DoubleTable) {
  const F64Case cases[] = {
      {1.0, "1"},
      {-12.0, "-12"},
      {100.0, "100"},
      {1.5, "1.5"},
      {0.1, "0.1"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1.0 / 3.0, "0.3333333333333333"},
      {2.0 / 3.0, "0.6666666666666666"},
      {123.456, "123.456"},
      {1e-5, "0.00001"},
      {1e-7, "0.0000001"},
      {1e10, "10000000000"},
      {1e21, "1000000000000000000000"},
      {1e23, "100000000000000000000000"},
      {123456789012345680.0, "123456789012345680"},
      {9007199254740993.0, "9007199254740992"},  // 2^53 + 1 rounds to 2^53
      {static_cast<double>(0.3f), "0.30000001192092896"},
      // Exact ties between two shortest candidates go away from zero (to_chars: to even).
      {1125899906842624.25, "1125899906842624.3"},
      {1125899906842624.75, "1125899906842624.8"},
      {-1125899906842625.25, "-1125899906842625.3"},
      {1e300, "1" + zeros(300)},
      {std::numeric_limits<double>::max(), "17976931348623157" + zeros(292)},
      {std::numeric_limits<double>::min(), "0." + zeros(307) + "22250738585072014"},
      {std::numeric_limits<double>::denorm_min(), "0." + zeros(323) + "5"},
      {2.225073858507201e-308, "0." + zeros(307) + "2225073858507201"},  // largest subnormal
  };
  for (const auto& c : cases) {
    EXPECT_EQ(format_shortest(c.value), c.text) << c.text;
    if (c.value > 0) {
      EXPECT_EQ(format_shortest(-c.value), "-" + c.text);
    }
  }
}

struct F32Case {
  float value;
  std::string text;
};

TEST(FormatShortest, FloatTableUsesTheFloatsOwnDigits) {
  const F32Case cases[] = {
      {1.0f, "1"},
      {0.1f, "0.1"},
      {0.3f, "0.3"},
      {1.0f / 3.0f, "0.33333334"},
      {123.456f, "123.456"},
      {1e-5f, "0.00001"},
      {1e-7f, "0.0000001"},
      {1e10f, "10000000000"},
      {1e30f, "1" + zeros(30)},
      {16777216.0f, "16777216"},
      {16777217.0f, "16777216"},
      {2097152.25f, "2097152.3"},  // a tie: to_chars alone gives 2097152.2
      {2097152.75f, "2097152.8"},
      {2097153.25f, "2097153.3"},
      {-2097152.25f, "-2097152.3"},
      {std::numeric_limits<float>::max(), "34028235" + zeros(31)},
      {std::numeric_limits<float>::min(), "0." + zeros(37) + "11754944"},
      {f32_from_bits(0x007FFFFF), "0." + zeros(37) + "11754942"},  // largest subnormal
      {f32_from_bits(1), "0." + zeros(44) + "1"},                  // smallest subnormal
      {f32_from_bits(5), "0." + zeros(44) + "7"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(format_shortest(c.value), c.text) << c.text;
  }
}

TEST(FormatShortest, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(format_shortest(0.0), "0");
  EXPECT_EQ(format_shortest(-0.0), "-0");
  EXPECT_EQ(format_shortest(inf), "inf");
  EXPECT_EQ(format_shortest(-inf), "-inf");
  EXPECT_EQ(format_shortest(nan), "NaN");
  EXPECT_EQ(format_shortest(-nan), "NaN");
  EXPECT_EQ(format_shortest(0.0f), "0");
  EXPECT_EQ(format_shortest(-0.0f), "-0");
  EXPECT_EQ(format_shortest(static_cast<float>(inf)), "inf");
  EXPECT_EQ(format_shortest(static_cast<float>(-inf)), "-inf");
  EXPECT_EQ(format_shortest(static_cast<float>(nan)), "NaN");
}

TEST(FormatShortest, Float32AndFloat64DigitsDiffer) {
  EXPECT_EQ(format_shortest(0.1f), "0.1");
  EXPECT_EQ(format_shortest(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(format_shortest(static_cast<float>(1.0 / 3.0)), "0.33333334");
  EXPECT_EQ(format_shortest(1.0 / 3.0), "0.3333333333333333");
}

TEST(FormatShortest, EveryOutputReadsBackToTheSameValue) {
  // A deterministic sweep over many exponents: the text is positional and round-trips.
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    double d;
    std::memcpy(&d, &state, sizeof d);
    if (!std::isfinite(d)) continue;
    const std::string text = format_shortest(d);
    ASSERT_EQ(text.find('e'), std::string::npos) << text;
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), d) << text;
    const float f = f32_from_bits(static_cast<uint32_t>(state >> 17));
    if (!std::isfinite(f)) continue;
    const std::string ftext = format_shortest(f);
    EXPECT_EQ(std::strtof(ftext.c_str(), nullptr), f) << ftext;
  }
}

TEST(FormatShortest, HalfAndBFloat16UseTheirOwnPrecision) {
  EXPECT_EQ(format_shortest(to_half(0.1)), "0.1");
  EXPECT_EQ(format_shortest(to_half(1.0 / 3.0)), "0.3333");
  // f16 max is 65504, but 65500 already reads back to it (its neighbour is 65472).
  EXPECT_EQ(format_shortest(to_half(65504.0)), "65500");
  EXPECT_EQ(format_shortest(to_half(2049.0)), "2048");
  EXPECT_EQ(format_shortest(to_half(1e6)), "inf");
  EXPECT_EQ(format_shortest(to_half(-0.0)), "-0");
  EXPECT_EQ(format_shortest(Half{0x0001}), "0.00000006");  // 2^-24
  EXPECT_EQ(format_shortest(to_bfloat16(1.0 / 3.0)), "0.334");
  EXPECT_EQ(format_shortest(to_bfloat16(3e38)), "300000000000000000000000000000000000000");
  EXPECT_EQ(format_shortest(to_bfloat16(-2.0)), "-2");
  EXPECT_EQ(format_shortest(BFloat16{0x7FC0}), "NaN");
}

TEST(FormatShortest, Complex) {
  EXPECT_EQ(format_shortest(std::complex<double>(1, 2)), "1+2i");
  EXPECT_EQ(format_shortest(std::complex<double>(3, -4)), "3-4i");
  EXPECT_EQ(format_shortest(std::complex<double>(-0.5, 0.25)), "-0.5+0.25i");
  EXPECT_EQ(format_shortest(std::complex<double>(0, 0)), "0+0i");
  EXPECT_EQ(format_shortest(std::complex<double>(1, -0.0)), "1-0i");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_shortest(std::complex<double>(nan, -nan)), "NaN+NaNi");
  EXPECT_EQ(format_shortest(std::complex<double>(inf, -inf)), "inf-infi");
  EXPECT_EQ(format_shortest(std::complex<float>(0.1f, 1.0f / 3.0f)), "0.1+0.33333334i");
  EXPECT_EQ(format_shortest(std::complex<double>(1e-7, 1e10)), "0.0000001+10000000000i");
}

TEST(FormatShortest, PositionalExpansion) {
  const auto positional = [](bool negative, const std::string& digits, int exponent) {
    std::string out;
    append_positional(out, negative, digits, exponent);
    return out;
  };
  EXPECT_EQ(positional(false, "1", 0), "1");
  EXPECT_EQ(positional(false, "125", 0), "1.25");
  EXPECT_EQ(positional(false, "125", 1), "12.5");
  EXPECT_EQ(positional(false, "125", 2), "125");
  EXPECT_EQ(positional(false, "125", 4), "12500");
  EXPECT_EQ(positional(true, "125", -1), "-0.125");
  EXPECT_EQ(positional(false, "125", -3), "0.00125");
}

}  // namespace
}  // namespace ndbuf
