// The small float formats against hand-worked bit patterns, every code of each format, and a
// brute-force nearest-value search as an independent oracle for rounding.
#include "ndbuf/base/minifloat.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace ndbuf {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

uint8_t encode(MinifloatKind kind, double value) {
  return minifloat_from_double(value, minifloat_format(kind));
}
double decode(MinifloatKind kind, uint8_t bits) {
  return minifloat_to_double(bits, minifloat_format(kind));
}
int width(const MinifloatFormat& f) {
  return f.exponent_bits + f.mantissa_bits + (f.has_sign ? 1 : 0);
}

TEST(Minifloat, E4M3FNBitPatterns) {
  const auto k = MinifloatKind::kF8E4M3FN;
  EXPECT_EQ(encode(k, 1.0), 0x38);    // 0 0111 000: exponent 7 - bias 7
  EXPECT_EQ(encode(k, -2.0), 0xC0);   // 1 1000 000
  EXPECT_EQ(encode(k, 448.0), 0x7E);  // 1.75 * 2^8, the largest finite value
  EXPECT_EQ(encode(k, -448.0), 0xFE);
  EXPECT_EQ(encode(k, 464.0), 0x7E);  // tie between 448 (even) and 480: 448
  EXPECT_EQ(encode(k, 464.5), 0x7F);  // past the tie: no Inf, so NaN
  EXPECT_EQ(encode(k, kInf), 0x7F);
  EXPECT_EQ(encode(k, -kInf), 0xFF);
  EXPECT_EQ(encode(k, kNaN), 0x7F);
  EXPECT_EQ(encode(k, -kNaN), 0xFF);
  EXPECT_EQ(encode(k, std::ldexp(1.0, -6)), 0x08);   // smallest normal
  EXPECT_EQ(encode(k, std::ldexp(7.0, -9)), 0x07);   // largest subnormal
  EXPECT_EQ(encode(k, std::ldexp(1.0, -9)), 0x01);   // smallest subnormal
  EXPECT_EQ(encode(k, std::ldexp(1.0, -10)), 0x00);  // half of it: tie to even (zero)
  EXPECT_EQ(encode(k, std::ldexp(1.0, -10) * 1.0001), 0x01);
  EXPECT_EQ(encode(k, std::ldexp(3.0, -10)), 0x02);  // tie between 1 and 2 (even) steps
  EXPECT_EQ(encode(k, -0.0), 0x80);
  EXPECT_EQ(encode(k, 1.0 + 1.0 / 16), 0x38);  // tie between 1 (even) and 1.125
  EXPECT_EQ(encode(k, 1.0 + 3.0 / 16), 0x3A);  // tie between 1.125 and 1.25 (even)
  EXPECT_EQ(encode(k, 0.1), 0x1D);             // 1.625 * 2^-4 = 0.1015625
  EXPECT_EQ(decode(k, 0x7E), 448.0);
  EXPECT_EQ(decode(k, 0x01), 0.001953125);
  EXPECT_TRUE(std::isnan(decode(k, 0x7F)));
  EXPECT_TRUE(std::isnan(decode(k, 0xFF)));
  EXPECT_EQ(decode(k, 0x78), 256.0);  // exponent 15 is finite here: 1.0 * 2^8
  EXPECT_EQ(minifloat_max_finite(minifloat_format(k)), 448.0);
}

TEST(Minifloat, E5M2BitPatterns) {
  const auto k = MinifloatKind::kF8E5M2;
  EXPECT_EQ(encode(k, 1.0), 0x3C);      // 0 01111 00
  EXPECT_EQ(encode(k, 57344.0), 0x7B);  // 1.75 * 2^15, the largest finite value
  EXPECT_EQ(encode(k, 61439.0), 0x7B);  // below the tie
  EXPECT_EQ(encode(k, 61440.0), 0x7C);  // tie between 57344 (odd) and 65536: Inf
  EXPECT_EQ(encode(k, kInf), 0x7C);
  EXPECT_EQ(encode(k, -kInf), 0xFC);
  EXPECT_EQ(encode(k, kNaN), 0x7E);  // quiet NaN
  EXPECT_EQ(encode(k, -kNaN), 0xFE);
  EXPECT_EQ(encode(k, std::ldexp(1.0, -14)), 0x04);  // smallest normal
  EXPECT_EQ(encode(k, std::ldexp(1.0, -16)), 0x01);  // smallest subnormal
  EXPECT_EQ(encode(k, -0.0), 0x80);
  EXPECT_EQ(encode(k, 0.1), 0x2E);  // 1.5 * 2^-4 = 0.09375 (0.1 = 1.6 * 2^-4)
  EXPECT_EQ(decode(k, 0x7C), kInf);
  EXPECT_EQ(decode(k, 0xFC), -kInf);
  EXPECT_TRUE(std::isnan(decode(k, 0x7D)));
  EXPECT_EQ(minifloat_max_finite(minifloat_format(k)), 57344.0);
}

TEST(Minifloat, OtherFormatsBitPatterns) {
  using K = MinifloatKind;
  EXPECT_EQ(decode(K::kF8E4M3FNUZ, 0x7F), 240.0);  // 1.875 * 2^(15 - 8)
  EXPECT_EQ(decode(K::kF8E4M3FNUZ, 0x01), std::ldexp(1.0, -10));
  EXPECT_TRUE(std::isnan(decode(K::kF8E4M3FNUZ, 0x80)));
  EXPECT_EQ(encode(K::kF8E4M3FNUZ, -0.0), 0x00);                   // no -0
  EXPECT_EQ(encode(K::kF8E4M3FNUZ, -std::ldexp(1.0, -13)), 0x00);  // underflow is +0 too
  EXPECT_EQ(encode(K::kF8E4M3FNUZ, kInf), 0x80);
  EXPECT_EQ(encode(K::kF8E4M3FNUZ, 1000.0), 0x80);
  EXPECT_EQ(decode(K::kF8E4M3B11FNUZ, 0x7F), 30.0);  // 1.875 * 2^(15 - 11)
  EXPECT_EQ(decode(K::kF8E4M3B11FNUZ, 0x01), std::ldexp(1.0, -13));
  EXPECT_EQ(decode(K::kF8E5M2FNUZ, 0x7F), 57344.0);  // 1.75 * 2^(31 - 16)
  EXPECT_EQ(decode(K::kF8E5M2FNUZ, 0x01), std::ldexp(1.0, -17));
  EXPECT_EQ(decode(K::kF8E4M3, 0x77), 240.0);  // 1.875 * 2^7, largest finite
  EXPECT_EQ(decode(K::kF8E4M3, 0x78), kInf);
  EXPECT_EQ(decode(K::kF8E3M4, 0x6F), 15.5);  // 1.9375 * 2^3, largest finite
  EXPECT_EQ(decode(K::kF8E3M4, 0x01), 0.015625);
  EXPECT_EQ(encode(K::kF8E3M4, 0.1), 0x06);     // subnormal 6 * 2^-6 = 0.09375
  EXPECT_EQ(encode(K::kF8E3M4, 3.1415), 0x49);  // 1.5625 * 2 = 3.125
  EXPECT_EQ(decode(K::kF8E8M0FNU, 0x00), std::ldexp(1.0, -127));
  EXPECT_EQ(decode(K::kF8E8M0FNU, 0x7F), 1.0);
  EXPECT_EQ(decode(K::kF8E8M0FNU, 0xFE), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(decode(K::kF8E8M0FNU, 0xFF)));
  EXPECT_EQ(encode(K::kF8E8M0FNU, 3.0), 0x81);   // tie between 2 and 4 goes up: 4
  EXPECT_EQ(encode(K::kF8E8M0FNU, 2.99), 0x80);  // 2
  EXPECT_EQ(encode(K::kF8E8M0FNU, 0.1), 0x7C);   // 0.125
  EXPECT_EQ(encode(K::kF8E8M0FNU, 0.0), 0x00);   // no zero: the smallest value
  EXPECT_EQ(encode(K::kF8E8M0FNU, -1.0), 0xFF);  // no sign: NaN
  EXPECT_EQ(encode(K::kF8E8M0FNU, kInf), 0xFF);
  EXPECT_EQ(encode(K::kF8E8M0FNU, std::ldexp(1.0, -140)), 0x00);
  EXPECT_EQ(decode(K::kF6E2M3FN, 0x1F), 7.5);   // 1.875 * 2^(3 - 1)
  EXPECT_EQ(decode(K::kF6E2M3FN, 0x3F), -7.5);  // sign is bit 5
  EXPECT_EQ(decode(K::kF6E2M3FN, 0x01), 0.125);
  EXPECT_EQ(encode(K::kF6E2M3FN, 100.0), 0x1F);  // saturates: no Inf, no NaN
  EXPECT_EQ(encode(K::kF6E2M3FN, -kInf), 0x3F);
  EXPECT_EQ(encode(K::kF6E2M3FN, kNaN), 0x00);
  EXPECT_EQ(decode(K::kF6E3M2FN, 0x1F), 28.0);  // 1.75 * 2^(7 - 3)
  EXPECT_EQ(decode(K::kF6E3M2FN, 0x01), 0.0625);
  EXPECT_EQ(decode(K::kF4E2M1FN, 0x07), 6.0);  // 1.5 * 2^(3 - 1)
  EXPECT_EQ(decode(K::kF4E2M1FN, 0x0F), -6.0);
  EXPECT_EQ(decode(K::kF4E2M1FN, 0x01), 0.5);
  EXPECT_EQ(encode(K::kF4E2M1FN, 0.25), 0x00);  // tie between 0 (even) and 0.5
  EXPECT_EQ(encode(K::kF4E2M1FN, 2.5), 0x04);   // tie between 2 (even) and 3
  EXPECT_EQ(encode(K::kF4E2M1FN, -0.0), 0x08);
}

// Every code of every format: decoding and encoding again gives the code back (NaN codes give
// a NaN), and values grow with the magnitude code.
TEST(Minifloat, EveryCodeRoundTripsAndOrders) {
  for (const auto& f : kMinifloatFormats) {
    const int codes = 1 << width(f);
    const int magnitudes = 1 << (f.exponent_bits + f.mantissa_bits);
    double previous = -1;
    for (int code = 0; code < codes; ++code) {
      const auto bits = static_cast<uint8_t>(code);
      const double value = minifloat_to_double(bits, f);
      if (minifloat_is_nan(bits, f)) {
        EXPECT_TRUE(std::isnan(value)) << f.name << " " << code;
        EXPECT_TRUE(minifloat_is_nan(minifloat_from_double(value, f), f)) << f.name;
        continue;
      }
      EXPECT_EQ(minifloat_from_double(value, f), bits) << f.name << " code " << code;
      if (code < magnitudes) {
        EXPECT_GT(value, previous) << f.name << " code " << code;
        previous = value;
      } else {
        EXPECT_EQ(value, -minifloat_to_double(static_cast<uint8_t>(code - magnitudes), f));
      }
    }
  }
}

// The code whose value is nearest to x (ties: the even code), found by trying every code; a
// zero keeps x's sign where the format has -0.
int nearest_code(double x, const MinifloatFormat& f) {
  int best = -1;
  double best_distance = kInf;
  for (int code = 0; code < (1 << width(f)); ++code) {
    const auto bits = static_cast<uint8_t>(code);
    const double v = minifloat_to_double(bits, f);
    const bool has_negative_zero = f.specials != MinifloatSpecials::kNanNegZero;
    if (std::isnan(v) || std::isinf(v)) continue;
    if (has_negative_zero && v == 0 && std::signbit(v) != std::signbit(x)) continue;
    const double d = std::fabs(v - x);
    if (d < best_distance || (d == best_distance && (code & 1) == 0)) {
      best = code;
      best_distance = d;
    }
  }
  return best;
}

TEST(Minifloat, RandomValuesRoundToTheNearestCode) {
  std::mt19937_64 rng(20261202);
  for (const auto& f : kMinifloatFormats) {
    if (!f.has_sign) continue;  // f8E8M0FNU's rounding is checked by hand above
    const double max = minifloat_max_finite(f);
    std::uniform_real_distribution<double> log_magnitude(std::log2(max) - 20, std::log2(max));
    for (int trial = 0; trial < 4000; ++trial) {
      const double sign = (trial & 1) ? -1.0 : 1.0;
      const double x = sign * std::exp2(log_magnitude(rng));
      if (std::fabs(x) > max) continue;
      const int expected = nearest_code(x, f);
      EXPECT_EQ(minifloat_from_double(x, f), expected) << f.name << " " << x;
    }
  }
}

TEST(Minifloat, TiesBetweenNeighboursRoundToEven) {
  for (const auto& f : kMinifloatFormats) {
    if (!f.has_sign) continue;
    const int magnitudes = 1 << (f.exponent_bits + f.mantissa_bits);
    for (int code = 0; code + 1 < magnitudes; ++code) {
      const double low = minifloat_to_double(static_cast<uint8_t>(code), f);
      const double high = minifloat_to_double(static_cast<uint8_t>(code + 1), f);
      if (std::isnan(high) || std::isinf(high)) break;
      const int even = (code & 1) == 0 ? code : code + 1;
      EXPECT_EQ(minifloat_from_double((low + high) / 2, f), even) << f.name << " " << code;
    }
  }
}

}  // namespace
}  // namespace ndbuf
