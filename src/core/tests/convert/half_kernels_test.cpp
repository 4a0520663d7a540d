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

using NarrowF32Array = void (*)(const float*, uint16_t*, int64_t);
using WidenF32Array = void (*)(const uint16_t*, float*, int64_t);

struct F32Forms {
  const Format& format;
  NarrowF32Array narrow;
  WidenF32Array widen;
};

const F32Forms kF32Forms[] = {{kFormats[0], &narrow_f32_to_f16, &widen_f16_to_f32},
                              {kFormats[1], &narrow_f32_to_bf16, &widen_bf16_to_f32}};

// f32s around every value of the format (the value, the midpoint to the next one and their f32
// neighbours, both signs) and a stride through all 2^32 patterns.
std::vector<float> floats_around_every_value(const Format& format) {
  std::vector<float> values;
  const float inf = std::numeric_limits<float>::infinity();
  for (uint32_t bits = 0; bits < 0x8000; ++bits) {
    const double value = format.widen_reference(static_cast<uint16_t>(bits));
    const double next = format.widen_reference(static_cast<uint16_t>(bits + 1));
    if (std::isnan(value) || !std::isfinite(next)) continue;
    for (auto v : {static_cast<float>(value), static_cast<float>(value + (next - value) / 2)}) {
      for (float x : {v, std::nextafter(v, inf), std::nextafter(v, -inf)}) {
        values.push_back(x);
        values.push_back(-x);
      }
    }
  }
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4099) {
    values.push_back(f32_of(static_cast<uint32_t>(bits)));
  }
  return values;
}

TEST(HalfKernels, F32NarrowingMatchesTheReferenceOfTheWidenedDouble) {
  for (const F32Forms& forms : kF32Forms) {
    const std::vector<float> values = floats_around_every_value(forms.format);
    std::vector<uint16_t> out(values.size());
    forms.narrow(values.data(), out.data(), static_cast<int64_t>(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      ASSERT_EQ(out[i], forms.format.narrow_reference(static_cast<double>(values[i])))
          << forms.format.name << " from f32 bits " << std::hex << f32_bits(values[i]);
    }
  }
}

TEST(HalfKernels, F32WideningOfEveryPatternIsExact) {
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  for (const F32Forms& forms : kF32Forms) {
    std::vector<float> out(all.size());
    forms.widen(all.data(), out.data(), static_cast<int64_t>(all.size()));
    for (size_t i = 0; i < all.size(); ++i) {
      const double expected = forms.format.widen_reference(all[i]);
      if (std::isnan(expected)) {
        ASSERT_TRUE(std::isnan(out[i])) << forms.format.name << " pattern " << i;
        ASSERT_EQ(std::signbit(out[i]), std::signbit(expected));
      } else {
        ASSERT_EQ(static_cast<double>(out[i]), expected) << forms.format.name << " pattern " << i;
      }
    }
  }
  // bf16 is the top half of an f32, NaN payloads included.
  const uint16_t signalling_nan = 0x7F81;
  float wide;
  widen_bf16_to_f32(&signalling_nan, &wide, 1);
  EXPECT_EQ(f32_bits(wide), 0x7F810000u);
}

// The loads element-wise kernels use: every pattern, NaNs included, has the bits of the
// reference double rounded to f32 (which quiets a signalling NaN and keeps its payload).
TEST(HalfKernels, QuietF32OfEveryPatternIsTheReferenceRoundedToF32) {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const auto pattern = static_cast<uint16_t>(bits);
    ASSERT_EQ(f32_bits(quiet_f32_of_f16(pattern)),
              f32_bits(static_cast<float>(half_bits_to_double(pattern))))
        << "f16 pattern " << std::hex << bits;
    ASSERT_EQ(f32_bits(quiet_f32_of_bf16(pattern)),
              f32_bits(static_cast<float>(bfloat16_bits_to_double(pattern))))
        << "bf16 pattern " << std::hex << bits;
  }
  std::vector<uint16_t> all(65536);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> wide(all.size());
  quiet_widen_bf16_to_f32(all.data(), wide.data(), static_cast<int64_t>(all.size()));
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(f32_bits(wide[i]), f32_bits(quiet_f32_of_bf16(all[i]))) << "array form, " << i;
  }
  EXPECT_EQ(f32_bits(quiet_f32_of_f16(0x7C01)), 0x7FC02000u);  // signalling: quiet, payload kept
  EXPECT_EQ(f32_bits(quiet_f32_of_f16(0x8001)), f32_bits(-0x1p-24f));
  EXPECT_EQ(f32_bits(quiet_f32_of_bf16(0xFF81)), 0xFFC10000u);
}

// The scalar f16 narrowing the kernels inline, at f16's edges (hand values) and over the
// sweep the array form is checked with.
TEST(HalfKernels, F16OfF32MatchesTheReference) {
  EXPECT_EQ(f16_of_f32(0x1p-24f), 0x0001);
  EXPECT_EQ(f16_of_f32(0x1p-25f), 0x0000);      // tie to even: zero
  EXPECT_EQ(f16_of_f32(-0x1.8p-24f), 0x8002);   // tie to even: two units, sign kept
  EXPECT_EQ(f16_of_f32(0x1.ff8p-15f), 0x03FF);  // the largest subnormal
  EXPECT_EQ(f16_of_f32(0x1.ffcp-15f), 0x0400);  // its tie with the smallest normal: up to even
  EXPECT_EQ(f16_of_f32(65519.0f), 0x7BFF);
  EXPECT_EQ(f16_of_f32(65520.0f), 0x7C00);
  EXPECT_EQ(f16_of_f32(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(f16_of_f32(f32_of(0xFF800001u)), 0xFE00);  // signalling NaN: quiet, sign kept
  for (const float value : floats_around_every_value(kFormats[0])) {
    ASSERT_EQ(f16_of_f32(value), double_to_half_bits(static_cast<double>(value)))
        << "from f32 bits " << std::hex << f32_bits(value);
  }
}

TEST(HalfKernels, Bf16OfF32BitsHandValues) {
  EXPECT_EQ(bf16_of_f32_bits(0x3F800000), 0x3F80);  // 1
  EXPECT_EQ(bf16_of_f32_bits(0x3F808000), 0x3F80);  // 1 + 2^-8, a tie: down to even
  EXPECT_EQ(bf16_of_f32_bits(0x3F818000), 0x3F82);  // 1 + 3 * 2^-8, a tie: up to even
  EXPECT_EQ(bf16_of_f32_bits(0x3F808001), 0x3F81);  // just above the tie
  EXPECT_EQ(bf16_of_f32_bits(0x7F7FFFFF), 0x7F80);  // largest f32 rounds to infinity
  EXPECT_EQ(bf16_of_f32_bits(0x7F7F8000), 0x7F80);  // the tie above the largest bf16: infinity
  EXPECT_EQ(bf16_of_f32_bits(0x7F7F7FFF), 0x7F7F);  // just below it: the largest bf16
  // The array forms at the same edges, and f16's: 65520 ties to infinity, 65519 is 65504.
  const float edges[] = {f32_of(0x7F7F8000), f32_of(0x7F7F7FFF), 65520.0f, 65519.0f};
  uint16_t bf16_bits[4], f16_bits[4];
  narrow_f32_to_bf16(edges, bf16_bits, 4);
  narrow_f32_to_f16(edges, f16_bits, 4);
  EXPECT_EQ(bf16_bits[0], 0x7F80);
  EXPECT_EQ(bf16_bits[1], 0x7F7F);
  EXPECT_EQ(f16_bits[2], 0x7C00);
  EXPECT_EQ(f16_bits[3], 0x7BFF);
  EXPECT_EQ(bf16_of_f32_bits(0x00008000), 0x0000);  // subnormal tie to even: zero
  EXPECT_EQ(bf16_of_f32_bits(0x80018000), 0x8002);  // negative subnormal tie: up to even
  EXPECT_EQ(bf16_of_f32_bits(0xFF800001), 0xFFC0);  // signalling NaN: quiet, sign kept
  EXPECT_EQ(bf16_of_f32_bits(0x7F800000), 0x7F80);  // infinity stays
}

}  // namespace
}  // namespace ndbuf
