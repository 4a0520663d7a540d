// Tests of the StableHLO literal spelling of elements (upstream pjrt's format_buffer()).
#include "ndbuf/format/format_literal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ndbuf {
namespace {

using Strings = std::vector<std::string>;

template <class T>
Tensor row_major(DType dtype, const Shape& shape, std::initializer_list<T> values) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  std::copy(values.begin(), values.end(), static_cast<T*>(t.data()));
  return t;
}

TEST(FormatLiteral, FloatsRoundTripDigitsPerDtype) {
  // Expected text written out by hand: 9 significant digits for f32, 17 for f64.
  EXPECT_EQ(format_literal_elements(row_major<float>(DType::kF32, {3}, {1.5f, -0.1f, 3e38f})),
            (Strings{"1.50000000e+00", "-1.00000001e-01", "3.00000001e+38"}));
  EXPECT_EQ(format_literal_elements(row_major<double>(DType::kF64, {2}, {0.1, -2.0})),
            (Strings{"1.0000000000000001e-01", "-2.0000000000000000e+00"}));
  // f16 0x3C00 = 1, 0x3555 = 0.333251953125; bf16 0x3F80 = 1, 0xC040 = -3.
  EXPECT_EQ(format_literal_elements(row_major<uint16_t>(DType::kF16, {2}, {0x3C00, 0x3555})),
            (Strings{"1.0000e+00", "3.3325e-01"}));
  EXPECT_EQ(format_literal_elements(row_major<uint16_t>(DType::kBF16, {2}, {0x3F80, 0xC040})),
            (Strings{"1.000e+00", "-3.000e+00"}));
}

TEST(FormatLiteral, NaNAndInfinitiesAreHexBitPatterns) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(format_literal_elements(row_major<float>(DType::kF32, {4}, {nan, -nan, inf, -inf})),
            (Strings{"0x7FC00000", "0x7FC00000", "0x7F800000", "0xFF800000"}));
  const double dinf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(
      format_literal_elements(row_major<double>(DType::kF64, {3}, {std::nan(""), dinf, -dinf})),
      (Strings{"0x7FF8000000000000", "0x7FF0000000000000", "0xFFF0000000000000"}));
  // f16: a signalling NaN 0x7C01 and a negative quiet NaN 0xFE00 both spell the quiet NaN.
  EXPECT_EQ(format_literal_elements(
                row_major<uint16_t>(DType::kF16, {4}, {0x7C01, 0xFE00, 0x7C00, 0xFC00})),
            (Strings{"0x7E00", "0x7E00", "0x7C00", "0xFC00"}));
  EXPECT_EQ(
      format_literal_elements(row_major<uint16_t>(DType::kBF16, {3}, {0xFFC1, 0x7F80, 0xFF80})),
      (Strings{"0x7FC0", "0x7F80", "0xFF80"}));
}

TEST(FormatLiteral, IntegersInFullPredAsWordsComplexAsPairs) {
  EXPECT_EQ(format_literal_elements(row_major<int8_t>(DType::kI8, {2}, {-128, 127})),
            (Strings{"-128", "127"}));
  EXPECT_EQ(format_literal_elements(row_major<uint8_t>(DType::kU8, {2}, {0, 255})),
            (Strings{"0", "255"}));
  EXPECT_EQ(format_literal_elements(row_major<int64_t>(
                DType::kI64, {2}, {std::numeric_limits<int64_t>::min(), 9007199254740993})),
            (Strings{"-9223372036854775808", "9007199254740993"}));
  EXPECT_EQ(format_literal_elements(
                row_major<uint64_t>(DType::kU64, {1}, {std::numeric_limits<uint64_t>::max()})),
            (Strings{"18446744073709551615"}));
  EXPECT_EQ(format_literal_elements(row_major<uint8_t>(DType::kPred, {2}, {1, 0})),
            (Strings{"true", "false"}));
  using C = std::complex<float>;
  EXPECT_EQ(format_literal_elements(row_major<C>(DType::kC64, {1}, {C(1.5f, -2.0f)})),
            (Strings{"(1.50000000e+00, -2.00000000e+00)"}));
}

TEST(FormatLiteral, ElementsComeInColumnMajorOrderWhateverTheLayout) {
  // Row-major 2 x 3 holding 1..6 row by row: column-major order reads 1 4 2 5 3 6.
  const Tensor t = row_major<int32_t>(DType::kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(format_literal_elements(t), (Strings{"1", "4", "2", "5", "3", "6"}));
  EXPECT_EQ(format_literal_elements(row_major<int32_t>(DType::kI32, {}, {7})), (Strings{"7"}));
  EXPECT_TRUE(
      format_literal_elements(Tensor::allocate(DType::kF32, {0, 3}, Order::kRowMajor)).empty());
}

}  // namespace
}  // namespace ndbuf
