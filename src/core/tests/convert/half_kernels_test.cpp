// Tests of the branch-free f16 / bf16 kernels against the reference conversions of base/half:
// every 16-bit pattern back to double, and a sweep of doubles forward.
#include "convert/half_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ndbuf/base/half.hpp"

namespace ndbuf {
namespace {

using WidenArray = void (*)(const uint16_t*, double*, int64_t);
using NarrowArray = void (*)(const double*, uint16_t*, int64_t);
using WidenReference = double (*)(uint16_t) noexcept;
using NarrowReference = uint16_t (*)(double) noexcept;

struct Format {
  const char* name;
  WidenArray widen;
  NarrowArray narrow;
  WidenReference widen_reference;
  NarrowReference narrow_reference;
};

const Format kFormats[] = {
    {"f16", &widen_f16, &narrow_to_f16, &half_bits_to_double, &double_to_half_bits},
    {"bf16", &widen_bf16, &narrow_to_bf16, &bfloat16_bits_to_double, &double_to_bfloat16_bits},
};

TEST(HalfKernels, EveryPatternWidensExactlyAsTheReference) {
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  for (const Format& format : kFormats) {
    std::vector<double> out(all.size());
    format.widen(all.data(), out.data(), static_cast<int64_t>(all.size()));
    for (size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(bits_of(out[i]), bits_of(format.widen_reference(all[i])))
          << format.name << " pattern " << i;
    }
  }
}

// Doubles around every value of the format: the value, its double neighbours, the exact
// midpoints to the next value (ties) and their neighbours, with both signs.
std::vector<double> doubles_around_every_value(const Format& format) {
  std::vector<double> values;
  for (uint32_t bits = 0; bits < 0x8000; ++bits) {
    const double value = format.widen_reference(static_cast<uint16_t>(bits));
    if (std::isnan(value)) continue;
    const double next = format.widen_reference(static_cast<uint16_t>(bits + 1));
    const double inf = std::numeric_limits<double>::infinity();
    const double mid = std::isfinite(next) ? value + (next - value) / 2 : value * 1.0009765625;
    for (double v : {value, mid}) {
      for (double x : {v, std::nextafter(v, inf), std::nextafter(v, -inf)}) {
        values.push_back(x);
        values.push_back(-x);
      }
    }
  }
  return values;
}

std::vector<double> special_and_random_doubles() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> values = {0.0,
                                -0.0,
                                inf,
                                -inf,
                                std::numeric_limits<double>::denorm_min(),
                                -std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                65504.0,
                                65519.99999999999,
                                65520.0,
                                0x1.FEp127,
                                0x1.FFp127,
                                0x1.FEFFFFFFFFFFFp127};
  // NaNs with payloads, both signs, quiet and signalling, R's NA among them.
  for (uint64_t payload : {uint64_t{1}, uint64_t{1954}, uint64_t{1} << 51, (uint64_t{1} << 52) - 1,
                           uint64_t{0x123456789}}) {
    values.push_back(double_of((uint64_t{0x7FF} << 52) | payload));
    values.push_back(double_of((uint64_t{0xFFF} << 52) | payload));
  }
  std::mt19937_64 random(17);
  for (int i = 0; i < 2000000; ++i) values.push_back(double_of(random()));
  // Magnitudes near the formats' ranges, where random bit patterns rarely land.
  std::uniform_real_distribution<double> exponent(-140.0, 130.0);
  for (int i = 0; i < 2000000; ++i) {
    const double v = std::exp2(exponent(random));
    values.push_back(i % 2 ? v : -v);
  }
  return values;
}

void expect_narrowing_matches(const Format& format, const std::vector<double>& values) {
  std::vector<uint16_t> out(values.size());
  format.narrow(values.data(), out.data(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(out[i], format.narrow_reference(values[i]))
        << format.name << " from " << std::hexfloat << values[i];
  }
}

TEST(HalfKernels, NarrowingAroundEveryValueMatchesTheReference) {
  for (const Format& format : kFormats) {
    expect_narrowing_matches(format, doubles_around_every_value(format));
  }
}

TEST(HalfKernels, NarrowingSpecialAndRandomDoublesMatchesTheReference) {
  const std::vector<double> values = special_and_random_doubles();
  for (const Format& format : kFormats) expect_narrowing_matches(format, values);
}

TEST(HalfKernels, ScalarFormsMatchTheArrayForms) {
  const std::vector<double> values = special_and_random_doubles();
  for (size_t i = 0; i < values.size(); i += 97) {
    ASSERT_EQ(narrow_bits<HalfF16>(values[i]), double_to_half_bits(values[i]));
    ASSERT_EQ(narrow_bits<HalfBF16>(values[i]), double_to_bfloat16_bits(values[i]));
  }
  for (uint32_t bits = 0; bits < 65536; bits += 7) {
    const auto pattern = static_cast<uint16_t>(bits);
    ASSERT_EQ(bits_of(widen_bits<HalfF16>(pattern)), bits_of(half_bits_to_double(pattern)));
    ASSERT_EQ(bits_of(widen_bits<HalfBF16>(pattern)), bits_of(bfloat16_bits_to_double(pattern)));
  }
}

TEST(HalfKernels, HandValues) {
  // Values worked out from the formats' definitions.
  EXPECT_EQ(narrow_bits<HalfF16>(1.0), 0x3C00);
  EXPECT_EQ(narrow_bits<HalfF16>(-2.0), 0xC000);
  EXPECT_EQ(narrow_bits<HalfF16>(65504.0), 0x7BFF);
  EXPECT_EQ(narrow_bits<HalfF16>(65520.0), 0x7C00);        // the tie rounds to infinity
  EXPECT_EQ(narrow_bits<HalfF16>(0x1p-24), 0x0001);        // smallest subnormal
  EXPECT_EQ(narrow_bits<HalfF16>(0x1p-25), 0x0000);        // tie to even: zero
  EXPECT_EQ(narrow_bits<HalfF16>(0x1.8p-24), 0x0002);      // tie to even: two units
  EXPECT_EQ(narrow_bits<HalfF16>(1.0 + 0x1p-11), 0x3C00);  // tie to even, down
  EXPECT_EQ(narrow_bits<HalfF16>(1.0 + 0x3p-11), 0x3C02);  // tie to even, up
  EXPECT_EQ(narrow_bits<HalfBF16>(1.0), 0x3F80);
  EXPECT_EQ(narrow_bits<HalfBF16>(0x1p-133), 0x0001);
  EXPECT_EQ(narrow_bits<HalfBF16>(-std::numeric_limits<double>::quiet_NaN()), 0xFFC0);
  EXPECT_EQ(widen_bits<HalfF16>(0x0001), 0x1p-24);
  EXPECT_EQ(widen_bits<HalfF16>(0xFC00), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(widen_bits<HalfBF16>(0x4049), 3.140625);
}

}  // namespace
}  // namespace ndbuf
