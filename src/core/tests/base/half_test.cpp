// Tests of f16/bf16 rounding against exact hand-computed bit patterns.
#include "ndbuf/base/half.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ndbuf {
namespace {

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

double from_bits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

const double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// f16

TEST(HalfFromDouble, ExactValues) {
  EXPECT_EQ(double_to_half_bits(0.0), 0x0000);
  EXPECT_EQ(double_to_half_bits(1.0), 0x3C00);
  EXPECT_EQ(double_to_half_bits(-2.0), 0xC000);
  EXPECT_EQ(double_to_half_bits(0.5), 0x3800);
  EXPECT_EQ(double_to_half_bits(1.5), 0x3E00);
  EXPECT_EQ(double_to_half_bits(1.0 + std::ldexp(1.0, -10)), 0x3C01);
  EXPECT_EQ(double_to_half_bits(1024.0), 0x6400);
  EXPECT_EQ(double_to_half_bits(2048.0), 0x6800);
  EXPECT_EQ(double_to_half_bits(65504.0), 0x7BFF);  // largest finite
  EXPECT_EQ(double_to_half_bits(-65504.0), 0xFBFF);
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -14)), 0x0400);     // smallest normal
  EXPECT_EQ(double_to_half_bits(std::ldexp(1023.0, -24)), 0x03FF);  // largest subnormal
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -24)), 0x0001);     // smallest subnormal
}

TEST(HalfFromDouble, TiesRoundToEven) {
  const double ulp = std::ldexp(1.0, -10);  // f16 spacing in [1, 2)
  // 1 + ulp/2 lies halfway between 1 (even) and 1 + ulp (odd).
  EXPECT_EQ(double_to_half_bits(1.0 + ulp / 2), 0x3C00);
  // 1 + 3 ulp/2 lies halfway between 1 + ulp (odd) and 1 + 2 ulp (even).
  EXPECT_EQ(double_to_half_bits(1.0 + 3 * ulp / 2), 0x3C02);
  EXPECT_EQ(double_to_half_bits(-(1.0 + 3 * ulp / 2)), 0xBC02);
  // Just off the tie goes to the nearer neighbour.
  EXPECT_EQ(double_to_half_bits(1.0 + ulp / 2 + std::ldexp(1.0, -40)), 0x3C01);
  EXPECT_EQ(double_to_half_bits(1.0 + 3 * ulp / 2 - std::ldexp(1.0, -40)), 0x3C01);
  // Integers: 2049 is a tie between 2048 (even) and 2050; 2051 between 2050 and 2052 (even).
  EXPECT_EQ(double_to_half_bits(2049.0), 0x6800);
  EXPECT_EQ(double_to_half_bits(2051.0), 0x6802);
  EXPECT_EQ(double_to_half_bits(2050.0), 0x6801);
}

TEST(HalfFromDouble, RoundsUpIntoTheNextBinade) {
  // 2 - 2^-11 is a tie between 2 - 2^-10 (odd mantissa 1023) and 2.
  EXPECT_EQ(double_to_half_bits(2.0 - std::ldexp(1.0, -11)), 0x4000);
  EXPECT_EQ(double_to_half_bits(2.0 - std::ldexp(1.0, -12)), 0x4000);
  // Slightly less than the tie stays in the lower binade.
  EXPECT_EQ(double_to_half_bits(2.0 - std::ldexp(1.0, -11) - std::ldexp(1.0, -30)), 0x3FFF);
  EXPECT_EQ(double_to_half_bits(1024.0 - 0.25), 0x6400);
  // The largest subnormal rounds up to the smallest normal.
  EXPECT_EQ(double_to_half_bits(std::ldexp(1023.5, -24)), 0x0400);
  EXPECT_EQ(double_to_half_bits(std::ldexp(1022.5, -24)), 0x03FE);  // tie to even
}

TEST(HalfFromDouble, OverflowsToInfinity) {
  EXPECT_EQ(double_to_half_bits(65519.0), 0x7BFF);
  EXPECT_EQ(double_to_half_bits(65519.99), 0x7BFF);
  EXPECT_EQ(double_to_half_bits(65520.0), 0x7C00);  // tie between 65504 (odd) and 2^16
  EXPECT_EQ(double_to_half_bits(-65520.0), 0xFC00);
  EXPECT_EQ(double_to_half_bits(65536.0), 0x7C00);
  EXPECT_EQ(double_to_half_bits(1e10), 0x7C00);
  EXPECT_EQ(double_to_half_bits(std::numeric_limits<double>::max()), 0x7C00);
  EXPECT_EQ(double_to_half_bits(-std::numeric_limits<double>::max()), 0xFC00);
  EXPECT_EQ(double_to_half_bits(kInf), 0x7C00);
  EXPECT_EQ(double_to_half_bits(-kInf), 0xFC00);
}

TEST(HalfFromDouble, Subnormals) {
  const double tiny = std::ldexp(1.0, -24);
  EXPECT_EQ(double_to_half_bits(tiny / 2), 0x0000);  // tie between 0 (even) and 2^-24
  EXPECT_EQ(double_to_half_bits(-tiny / 2), 0x8000);
  EXPECT_EQ(double_to_half_bits(std::nextafter(tiny / 2, 1.0)), 0x0001);
  EXPECT_EQ(double_to_half_bits(tiny / 2 + std::ldexp(1.0, -60)), 0x0001);
  EXPECT_EQ(double_to_half_bits(std::nextafter(tiny / 2, 0.0)), 0x0000);
  EXPECT_EQ(double_to_half_bits(1.5 * tiny), 0x0002);  // tie between 1 and 2 (even)
  EXPECT_EQ(double_to_half_bits(2.5 * tiny), 0x0002);  // tie between 2 (even) and 3
  EXPECT_EQ(double_to_half_bits(-3.0 * tiny), 0x8003);
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -40)), 0x0000);
  EXPECT_EQ(double_to_half_bits(std::ldexp(1.0, -1074)), 0x0000);  // a double subnormal
  EXPECT_EQ(double_to_half_bits(-std::ldexp(1.0, -1074)), 0x8000);
  EXPECT_EQ(double_to_half_bits(std::numeric_limits<double>::min()), 0x0000);
}

TEST(HalfFromDouble, SignedZero) {
  EXPECT_EQ(double_to_half_bits(0.0), 0x0000);
  EXPECT_EQ(double_to_half_bits(-0.0), 0x8000);
  EXPECT_EQ(bits_of(half_bits_to_double(0x8000)), 0x8000000000000000ULL);
  EXPECT_EQ(bits_of(half_bits_to_double(0x0000)), 0x0000000000000000ULL);
  EXPECT_EQ(bits_of(bfloat16_bits_to_double(0x8000)), 0x8000000000000000ULL);
  EXPECT_EQ(double_to_bfloat16_bits(-0.0), 0x8000);
}

TEST(HalfFromDouble, NaNStaysQuietNaNWithItsSign) {
  const double quiet = std::numeric_limits<double>::quiet_NaN();
  const double signalling = from_bits(0x7FF0000000000001ULL);  // payload only in low bits
  const double r_na = from_bits(0x7FF00000000007A2ULL);
  for (double nan : {quiet, signalling, r_na}) {
    const uint16_t positive = double_to_half_bits(nan);
    EXPECT_EQ(positive & 0x7C00, 0x7C00);
    EXPECT_NE(positive & 0x0200, 0) << "quiet bit";
    EXPECT_EQ(positive & 0x8000, 0);
    const uint16_t negative = double_to_half_bits(-nan);
    EXPECT_EQ(negative & 0x7C00, 0x7C00);
    EXPECT_NE(negative & 0x0200, 0);
    EXPECT_NE(negative & 0x8000, 0);
    EXPECT_TRUE(std::isnan(half_bits_to_double(positive)));
    EXPECT_TRUE(std::isnan(half_bits_to_double(negative)));
  }
}

TEST(HalfToDouble, Values) {
  EXPECT_EQ(half_bits_to_double(0x3C00), 1.0);
  EXPECT_EQ(half_bits_to_double(0xC000), -2.0);
  EXPECT_EQ(half_bits_to_double(0x7BFF), 65504.0);
  EXPECT_EQ(half_bits_to_double(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(half_bits_to_double(0x83FF), -std::ldexp(1023.0, -24));
  EXPECT_EQ(half_bits_to_double(0x0400), std::ldexp(1.0, -14));
  EXPECT_EQ(half_bits_to_double(0x3555), 0x1.554p-2);
  EXPECT_EQ(half_bits_to_double(0x7C00), kInf);
  EXPECT_EQ(half_bits_to_double(0xFC00), -kInf);
  EXPECT_TRUE(std::isnan(half_bits_to_double(0x7E00)));
  EXPECT_TRUE(std::isnan(half_bits_to_double(0x7C01)));
  EXPECT_TRUE(std::signbit(half_bits_to_double(0xFE00)));
}

// ---------------------------------------------------------------------------------------------
// bf16

TEST(BFloat16FromDouble, ExactValues) {
  EXPECT_EQ(double_to_bfloat16_bits(1.0), 0x3F80);
  EXPECT_EQ(double_to_bfloat16_bits(-1.0), 0xBF80);
  EXPECT_EQ(double_to_bfloat16_bits(3.0), 0x4040);
  EXPECT_EQ(double_to_bfloat16_bits(0.0), 0x0000);
  EXPECT_EQ(double_to_bfloat16_bits(-0.0), 0x8000);
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + std::ldexp(1.0, -7)), 0x3F81);
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(255.0, 120)), 0x7F7F);  // largest finite
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(1.0, -126)), 0x0080);   // smallest normal
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(1.0, -133)), 0x0001);   // smallest subnormal
  EXPECT_EQ(double_to_bfloat16_bits(65536.0), 0x4780);
}

TEST(BFloat16FromDouble, RoundingCases) {
  const double ulp = std::ldexp(1.0, -7);
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + ulp / 2), 0x3F80);      // tie to even (down)
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + 3 * ulp / 2), 0x3F82);  // tie to even (up)
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + ulp / 2 + std::ldexp(1.0, -50)), 0x3F81);
  EXPECT_EQ(double_to_bfloat16_bits(2.0 - ulp / 4), 0x4000);  // up into the next binade
  // A double just above a bf16 tie that a float intermediate would turn into the tie itself:
  // 1 + 2^-8 + 2^-30 becomes 1 + 2^-8 in float, which then ties down to 1.
  EXPECT_EQ(double_to_bfloat16_bits(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)), 0x3F81);
  EXPECT_EQ(double_to_bfloat16_bits(0.1), 0x3DCD);
  // Overflow: the tie between the largest finite (odd mantissa) and 2^128 goes to Inf.
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(511.0, 119)), 0x7F80);
  EXPECT_EQ(double_to_bfloat16_bits(std::nextafter(std::ldexp(511.0, 119), 0.0)), 0x7F7F);
  EXPECT_EQ(double_to_bfloat16_bits(-1e39), 0xFF80);
  EXPECT_EQ(double_to_bfloat16_bits(1e300), 0x7F80);
  EXPECT_EQ(double_to_bfloat16_bits(kInf), 0x7F80);
  EXPECT_EQ(double_to_bfloat16_bits(-kInf), 0xFF80);
  // Subnormals.
  const double tiny = std::ldexp(1.0, -133);
  EXPECT_EQ(double_to_bfloat16_bits(tiny / 2), 0x0000);
  EXPECT_EQ(double_to_bfloat16_bits(std::nextafter(tiny / 2, 1.0)), 0x0001);
  EXPECT_EQ(double_to_bfloat16_bits(-1.5 * tiny), 0x8002);
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(127.5, -133)), 0x0080);  // up to normal
  EXPECT_EQ(double_to_bfloat16_bits(std::ldexp(1.0, -1074)), 0x0000);
}

TEST(BFloat16FromDouble, NaNStaysQuietNaNWithItsSign) {
  for (uint64_t payload : {0x7FF8000000000000ULL, 0x7FF0000000000001ULL, 0x7FF00000000007A2ULL}) {
    const double nan = from_bits(payload);
    const uint16_t positive = double_to_bfloat16_bits(nan);
    const uint16_t negative = double_to_bfloat16_bits(-nan);
    EXPECT_EQ(positive & 0xFFC0, 0x7FC0);
    EXPECT_EQ(negative & 0xFFC0, 0xFFC0);
    EXPECT_TRUE(std::isnan(bfloat16_bits_to_double(positive)));
  }
}

TEST(BFloat16ToDouble, Values) {
  EXPECT_EQ(bfloat16_bits_to_double(0x3F80), 1.0);
  EXPECT_EQ(bfloat16_bits_to_double(0x7F7F), std::ldexp(255.0, 120));
  EXPECT_EQ(bfloat16_bits_to_double(0x0001), std::ldexp(1.0, -133));
  EXPECT_EQ(bfloat16_bits_to_double(0x807F), -std::ldexp(127.0, -133));
  EXPECT_EQ(bfloat16_bits_to_double(0x7F80), kInf);
  EXPECT_EQ(bfloat16_bits_to_double(0xFF80), -kInf);
  EXPECT_TRUE(std::isnan(bfloat16_bits_to_double(0x7FC0)));
  EXPECT_TRUE(std::isnan(bfloat16_bits_to_double(0x7F81)));
  EXPECT_TRUE(std::signbit(bfloat16_bits_to_double(0x8000)));
}

TEST(HalfAndBFloat16, WrapperStructsMatchBitFunctions) {
  EXPECT_EQ(to_half(1.5).bits, 0x3E00);
  EXPECT_EQ(to_bfloat16(1.5).bits, 0x3FC0);
  EXPECT_EQ(to_double(Half{0x3E00}), 1.5);
  EXPECT_EQ(to_double(BFloat16{0x3FC0}), 1.5);
  EXPECT_EQ(to_double_value(Half{0xC000}), -2.0);
  EXPECT_EQ(to_double_value(BFloat16{0xC000}), -2.0);
  EXPECT_EQ(to_double_value(0.25f), 0.25);
}

// ---------------------------------------------------------------------------------------------
// Every bit pattern: widening is exact and narrowing gives the same bits back.

TEST(HalfAndBFloat16, EveryPatternRoundTrips) {
  int nan_count[2] = {0, 0};
  for (uint32_t pattern = 0; pattern <= 0xFFFF; ++pattern) {
    const auto bits = static_cast<uint16_t>(pattern);
    const double h = half_bits_to_double(bits);
    if ((bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0) {
      ++nan_count[0];
      ASSERT_TRUE(std::isnan(h)) << std::hex << pattern;
      ASSERT_TRUE(std::isnan(half_bits_to_double(double_to_half_bits(h)))) << std::hex << pattern;
      ASSERT_EQ(double_to_half_bits(h) & 0x8000, bits & 0x8000) << std::hex << pattern;
    } else {
      ASSERT_FALSE(std::isnan(h)) << std::hex << pattern;
      ASSERT_EQ(double_to_half_bits(h), bits) << std::hex << pattern;
    }
    const double b = bfloat16_bits_to_double(bits);
    if ((bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0) {
      ++nan_count[1];
      ASSERT_TRUE(std::isnan(b)) << std::hex << pattern;
      ASSERT_TRUE(std::isnan(bfloat16_bits_to_double(double_to_bfloat16_bits(b))));
      ASSERT_EQ(double_to_bfloat16_bits(b) & 0x8000, bits & 0x8000) << std::hex << pattern;
    } else {
      ASSERT_FALSE(std::isnan(b)) << std::hex << pattern;
      ASSERT_EQ(double_to_bfloat16_bits(b), bits) << std::hex << pattern;
    }
  }
  EXPECT_EQ(nan_count[0], 2 * 1023);
  EXPECT_EQ(nan_count[1], 2 * 127);
}

// Widening is monotonic over the non-negative patterns: each value is strictly above the last.
TEST(HalfAndBFloat16, WideningIsMonotonic) {
  for (uint16_t bits = 1; bits <= 0x7C00; ++bits) {
    ASSERT_LT(half_bits_to_double(bits - 1), half_bits_to_double(bits)) << bits;
  }
  for (uint16_t bits = 1; bits <= 0x7F80; ++bits) {
    ASSERT_LT(bfloat16_bits_to_double(bits - 1), bfloat16_bits_to_double(bits)) << bits;
  }
}

// ---------------------------------------------------------------------------------------------
// A reference narrowing computed independently: decode each non-negative pattern by the
// textbook formula, find the two neighbours of |x| and compare |x| with their midpoint (exact in
// double, since both formats have far fewer significant bits than double).

struct Format {
  int exp_bits;
  int mant_bits;
  uint16_t (*narrow)(double) noexcept;
};

// Value of a non-negative pattern; the Inf pattern decodes to 2^(emax+1), the point a value
// must reach (by rounding) to overflow.
double reference_decode(const Format& f, uint32_t bits) {
  const uint32_t exponent = bits >> f.mant_bits;
  const uint32_t fraction = bits & ((1u << f.mant_bits) - 1);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  if (exponent == 0) return std::ldexp(static_cast<double>(fraction), 1 - bias - f.mant_bits);
  return std::ldexp(static_cast<double>((1u << f.mant_bits) + fraction),
                    static_cast<int>(exponent) - bias - f.mant_bits);
}

uint16_t reference_narrow(const Format& f, double x) {
  const uint16_t sign =
      std::signbit(x) ? static_cast<uint16_t>(1u << (f.exp_bits + f.mant_bits)) : 0;
  const uint32_t inf_bits = ((1u << f.exp_bits) - 1) << f.mant_bits;
  const double a = std::fabs(x);
  if (a >= reference_decode(f, inf_bits)) return sign | static_cast<uint16_t>(inf_bits);
  // Largest pattern whose value is <= a (binary search over the monotonic patterns).
  uint32_t lo = 0;
  uint32_t hi = inf_bits;  // value(hi) > a
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    (reference_decode(f, mid) <= a ? lo : hi) = mid;
  }
  const double below = reference_decode(f, lo);
  const double above = reference_decode(f, lo + 1);
  const double midpoint = below / 2 + above / 2;  // exact: both have few significant bits
  uint32_t chosen;
  if (a == below) {
    chosen = lo;
  } else if (a < midpoint) {
    chosen = lo;
  } else if (a > midpoint) {
    chosen = lo + 1;
  } else {
    chosen = (lo % 2 == 0) ? lo : lo + 1;
  }
  return sign | static_cast<uint16_t>(chosen);
}

std::vector<double> reference_inputs(const Format& f, uint32_t seed) {
  std::mt19937_64 rng(seed);
  const uint32_t inf_bits = ((1u << f.exp_bits) - 1) << f.mant_bits;
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  std::vector<double> inputs;
  std::uniform_int_distribution<uint32_t> pattern(0, inf_bits - 1);
  std::uniform_int_distribution<int> exponent(-bias - f.mant_bits - 3, bias + 3);
  for (int k = 0; k < 1500; ++k) {
    // Doubles with random fraction bits over the format's whole exponent range and a little
    // beyond it on both sides.
    const uint64_t fraction = rng() & ((uint64_t{1} << 52) - 1);
    const uint64_t biased = static_cast<uint64_t>(exponent(rng) + 1023);
    const uint64_t sign = rng() & 1;
    inputs.push_back(from_bits((sign << 63) | (biased << 52) | fraction));
  }
  for (int k = 0; k < 1500; ++k) {
    // Exact midpoints between neighbours and the doubles on either side of them.
    const uint32_t bits = pattern(rng);
    const double mid = reference_decode(f, bits) / 2 + reference_decode(f, bits + 1) / 2;
    const double sign = (k % 2 == 0) ? 1.0 : -1.0;
    inputs.push_back(sign * mid);
    inputs.push_back(sign * std::nextafter(mid, 0.0));
    inputs.push_back(sign * std::nextafter(mid, kInf));
  }
  return inputs;
}

TEST(HalfAndBFloat16, NarrowingMatchesIndependentReference) {
  const Format bf16{8, 7, &double_to_bfloat16_bits};
  const Format f16{5, 10, &double_to_half_bits};
  // Sanity of the reference itself.
  EXPECT_EQ(reference_narrow(f16, 65520.0), 0x7C00);
  EXPECT_EQ(reference_narrow(f16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  EXPECT_EQ(reference_narrow(bf16, -0.1), 0xBDCD);
  uint32_t seed = 20240611;
  for (const Format& f : {bf16, f16}) {
    const std::vector<double> inputs = reference_inputs(f, seed++);
    ASSERT_GE(inputs.size(), 6000u);
    for (double x : inputs) {
      const uint16_t expected = reference_narrow(f, x);
      ASSERT_EQ(f.narrow(x), expected)
          << std::hexfloat << x << " (mant_bits " << f.mant_bits << ")";
    }
  }
}

}  // namespace
}  // namespace ndbuf
