// Tests of single printed cells.
#include "ndbuf/format/format_cell.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

namespace ndbuf {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

FloatFormat choose(std::initializer_list<double> values) {
  FloatStats stats;
  for (double v : values) {
    stats.add_element();
    stats.add_value(v);
  }
  return stats.choose();
}

std::string integer(int64_t v) {
  std::string out;
  append_integer(out, v);
  return out;
}

std::string unsigned_integer(uint64_t v) {
  std::string out;
  append_integer(out, v);
  return out;
}

std::string real(double v, FloatFormat format) {
  std::string out;
  append_float(out, v, format);
  return out;
}

std::string complex(double re, double im, FloatFormat format) {
  std::string out;
  append_complex(out, re, im, format);
  return out;
}

constexpr FloatFormat kInteger{FloatMode::kInteger, 0};
constexpr FloatFormat kFixed{FloatMode::kFixed, 0};
constexpr FloatFormat kScientific{FloatMode::kScientific, 0};

TEST(FormatCell, IntegersUpToSixDigitsArePlain) {
  EXPECT_EQ(integer(0), "0");
  EXPECT_EQ(integer(123456), "123456");
  EXPECT_EQ(integer(-123456), "-123456");
  EXPECT_EQ(integer(999999), "999999");
  EXPECT_EQ(integer(-999999), "-999999");
  EXPECT_EQ(unsigned_integer(999999), "999999");
}

TEST(FormatCell, IntegersOfSevenDigitsAreScientific) {
  EXPECT_EQ(integer(1000000), "1.0000e+06");
  EXPECT_EQ(integer(1234567), "1.2346e+06");
  EXPECT_EQ(integer(-1234567), "-1.2346e+06");
  EXPECT_EQ(integer(INT32_MIN), "-2.1475e+09");
  EXPECT_EQ(integer(INT64_MIN), "-9.2234e+18");
  EXPECT_EQ(integer(INT64_MAX), "9.2234e+18");
  EXPECT_EQ(unsigned_integer(UINT64_MAX), "1.8447e+19");
  EXPECT_EQ(unsigned_integer(1000000), "1.0000e+06");
}

TEST(FormatCell, ModeOneAllFiniteValuesWhole) {
  EXPECT_EQ(choose({1, 2, 3}), kInteger);
  EXPECT_EQ(choose({1e10, 1}), kInteger);
  EXPECT_EQ(choose({kInf, -kInf, kNaN, 1}), kInteger);
  EXPECT_EQ(choose({kNaN}), kInteger);  // no finite value at all
  EXPECT_EQ(choose({0, -0.0}), kInteger);
}

TEST(FormatCell, ModeTwoFixedInsideOpenInterval) {
  EXPECT_EQ(choose({1, 2.5}), kFixed);
  EXPECT_EQ(choose({0.00011, 999999.5}), kFixed);
  EXPECT_EQ(choose({0, 0.5}), kFixed);  // zeros do not count
  EXPECT_EQ(choose({kInf, kNaN, 100011.234567}), kFixed);
  // 1e-4 and 1e6 themselves are outside the interval.
  EXPECT_NE(choose({1e-4, 0.5}).mode, FloatMode::kFixed);
  EXPECT_NE(choose({1e6, 0.5}).mode, FloatMode::kFixed);
}

TEST(FormatCell, ModeThreeSingleElementIsScientific) {
  EXPECT_EQ(choose({1e-10}), kScientific);
  EXPECT_EQ(choose({1234567.5}), kScientific);
}

TEST(FormatCell, ModeFourSharedPowerOfTenIsScaled) {
  EXPECT_EQ(choose({1e-7, 2e-7, 9.5e-7}), (FloatFormat{FloatMode::kScaled, -7}));
  EXPECT_EQ(choose({1.5e6 + 0.5, 3e6}), (FloatFormat{FloatMode::kScaled, 6}));
  // Doubles from 2^53 on are whole, so large values print in the integer mode.
  EXPECT_EQ(choose({1.5e17, 3e17}), kInteger);
  EXPECT_EQ(choose({0, 1.5e-5, 2.5e-5}), (FloatFormat{FloatMode::kScaled, -5}));
}

TEST(FormatCell, ModeFiveMixedPowersAreScientific) {
  EXPECT_EQ(choose({1e10, 1e-10}), kScientific);
  EXPECT_EQ(choose({1.5e-5, 2.5e-4}), kScientific);
}

TEST(FormatCell, ScaleLineCarriesTheSignOfTheExponent) {
  EXPECT_EQ(scale_line({FloatMode::kScaled, -7}), "1e-07 *");
  EXPECT_EQ(scale_line({FloatMode::kScaled, 12}), "1e+12 *");
  EXPECT_EQ(scale_line({FloatMode::kScaled, -300}), "1e-300 *");
  EXPECT_EQ(scale_line(kFixed), "");
}

TEST(FormatCell, DecimalExponent) {
  EXPECT_EQ(decimal_exponent(1e-7), -7);
  EXPECT_EQ(decimal_exponent(1000), 3);
  EXPECT_EQ(decimal_exponent(999.99), 2);
  EXPECT_EQ(decimal_exponent(-0.05), -2);
  EXPECT_EQ(decimal_exponent(5e-324), -324);
}

TEST(FormatCell, FloatsInEachMode) {
  EXPECT_EQ(real(42, kInteger), "42");
  EXPECT_EQ(real(-100000, kInteger), "-100000");
  EXPECT_EQ(real(1e6, kInteger), "1.0000e+06");
  EXPECT_EQ(real(2.5, kFixed), "2.5000");
  EXPECT_EQ(real(-10.1213, kFixed), "-10.1213");
  EXPECT_EQ(real(1e-10, kScientific), "1.0000e-10");
  EXPECT_EQ(real(-1e10, kScientific), "-1.0000e+10");
  EXPECT_EQ(real(2.5e-7, {FloatMode::kScaled, -7}), "2.5000");
  EXPECT_EQ(real(0, {FloatMode::kScaled, -7}), "0.0000");
  EXPECT_EQ(real(3.25e12, {FloatMode::kScaled, 12}), "3.2500");
  EXPECT_EQ(real(5e-324, {FloatMode::kScaled, -324}), "4.9407");
  EXPECT_EQ(real(1.5e308, {FloatMode::kScaled, 308}), "1.5000");
}

TEST(FormatCell, NonFiniteAndNegativeZero) {
  for (FloatFormat f : {kInteger, kFixed, kScientific, FloatFormat{FloatMode::kScaled, 3}}) {
    EXPECT_EQ(real(kNaN, f), "nan");
    EXPECT_EQ(real(-kNaN, f), "nan");  // never -nan
    EXPECT_EQ(real(std::copysign(kNaN, -1.0), f), "nan");
    EXPECT_EQ(real(kInf, f), "inf");
    EXPECT_EQ(real(-kInf, f), "-inf");
  }
  EXPECT_EQ(real(-0.0, kInteger), "0");
  EXPECT_EQ(real(-0.0, kFixed), "0.0000");
  EXPECT_EQ(real(-0.0, kScientific), "0.0000e+00");
}

TEST(FormatCell, ComplexPartsShareTheMode) {
  EXPECT_EQ(complex(1, 2, kInteger), "1+2i");
  EXPECT_EQ(complex(1, -2, kInteger), "1-2i");
  EXPECT_EQ(complex(-1.5, 0.25, kFixed), "-1.5000+0.2500i");
  EXPECT_EQ(complex(0, -0.0, kInteger), "0+0i");
  EXPECT_EQ(complex(1, kNaN, kInteger), "1+nani");
  EXPECT_EQ(complex(kNaN, -kInf, kInteger), "nan-infi");
  EXPECT_EQ(complex(1e-10, 2e10, kScientific), "1.0000e-10+2.0000e+10i");
}

}  // namespace
}  // namespace ndbuf
