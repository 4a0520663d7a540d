// Tests of HArray's nested-bracket layout.
#include "ndbuf/format/format_nested.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "ndbuf/harray/slice.hpp"

namespace ndbuf {
namespace {

template <class T>
Tensor iota_of(DType dtype, const Shape& shape, double first = 0) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  auto* p = static_cast<T*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(first + static_cast<double>(i));
  return t;
}

Tensor iota(const Shape& shape, double first = 0) {
  return iota_of<double>(DType::kF64, shape, first);
}

template <class T>
Tensor from_values(DType dtype, const Shape& shape, std::initializer_list<T> values) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  std::copy(values.begin(), values.end(), static_cast<T*>(t.data()));
  return t;
}

std::string golden(const std::string& name) {
  std::ifstream in(std::string(NDBUF_TEST_DATA_DIR) + "/nested/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (!s.empty() && s.back() == '\n') s.pop_back();  // files end with one newline
  return s;
}

TEST(FormatNested, MatrixAsInTheHArrayDocs) {
  EXPECT_EQ(format_nested(iota({4, 3}, 1)),
            "[[1, 2, 3],\n"
            " [4, 5, 6],\n"
            " [7, 8, 9],\n"
            " [10, 11, 12]]");
}

TEST(FormatNested, OneAndZeroDimensions) {
  EXPECT_EQ(format_nested(iota({3}, 1)), "[1, 2, 3]");
  EXPECT_EQ(format_nested(iota({1}, 7)), "[7]");
  EXPECT_EQ(format_nested(iota({}, 5)), "5");
  EXPECT_EQ(format_nested(from_values<double>(DType::kF64, {}, {-0.5})), "-0.5");
}

TEST(FormatNested, ThreeDimensionsSeparateBlocksByABlankLine) {
  EXPECT_EQ(format_nested(iota({2, 2, 3})),
            "[[[0, 1, 2],\n"
            "  [3, 4, 5]],\n"
            "\n"
            " [[6, 7, 8],\n"
            "  [9, 10, 11]]]");
}

TEST(FormatNested, FourDimensionsUseTwoBlankLines) {
  EXPECT_EQ(format_nested(iota({2, 1, 2, 2})),
            "[[[[0, 1],\n"
            "   [2, 3]]],\n"
            "\n"
            "\n"
            " [[[4, 5],\n"
            "   [6, 7]]]]");
}

TEST(FormatNested, EmptyArraysPrintOneBracketPairPerAxis) {
  EXPECT_EQ(format_nested(iota({0})), "[]");
  EXPECT_EQ(format_nested(iota({2, 0})), "[[]]");
  EXPECT_EQ(format_nested(iota({0, 3})), "[[]]");
  EXPECT_EQ(format_nested(iota({3, 0, 2})), "[[[]]]");
}

TEST(FormatNested, StridedViewsPrintInTheirOwnOrder) {
  const Tensor t = iota({3, 4});
  const Tensor v = slice(
      t, {AxisSlice::range(std::nullopt, std::nullopt, -1), AxisSlice::range(1, std::nullopt, 2)});
  EXPECT_EQ(format_nested(v), "[[9, 11],\n [5, 7],\n [1, 3]]");
  EXPECT_EQ(format_nested(t.reversed_axes()),
            "[[0, 4, 8],\n [1, 5, 9],\n [2, 6, 10],\n [3, 7, 11]]");
}

TEST(FormatNested, ElidesFrom500Elements) {
  const std::string all = format_nested(iota({499}));
  EXPECT_EQ(all.find("..."), std::string::npos);
  EXPECT_EQ(std::count(all.begin(), all.end(), ','), 498);
  EXPECT_EQ(format_nested(iota({500})), "[0, 1, 2, 3, 4, ..., 495, 496, 497, 498, 499]");
  EXPECT_EQ(format_nested(iota({1000})), "[0, 1, 2, 3, 4, ..., 995, 996, 997, 998, 999]");
  // Axes within their limit are printed in full even when the array is large.
  EXPECT_EQ(format_nested(iota({1, 11, 50})), golden("elided_1x11x50.txt"));
}

TEST(FormatNested, ElidedGoldens) {
  EXPECT_EQ(format_nested(iota({30, 30})), golden("elided_30x30.txt"));
  EXPECT_EQ(format_nested(iota({10, 10, 10})), golden("elided_10x10x10.txt"));
  EXPECT_EQ(format_nested(iota({7, 2, 3, 12})), golden("elided_7x2x3x12.txt"));
}

TEST(FormatNested, PrintingCostDependsOnPrintedItemsOnly) {
  const Tensor big = Tensor::allocate(DType::kF32, {1000, 1000, 10}, Order::kRowMajor);
  std::fill_n(static_cast<float*>(big.data()), big.numel(), 0.5f);
  const std::string text = format_nested(big);
  EXPECT_LT(text.size(), 4000u);  // 6 x 11 x 10 items of "0.5, "
  EXPECT_EQ(text.substr(0, 40), "[[[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.");
}

TEST(FormatNested, Float32AndFloat64DigitsDiffer) {
  const Tensor f = from_values<float>(DType::kF32, {3}, {1.0f / 3.0f, 0.1f, 1e10f});
  EXPECT_EQ(format_nested(f), "[0.33333334, 0.1, 10000000000]");
  const Tensor d = from_values<double>(DType::kF64, {3}, {1.0 / 3.0, 0.1, 1e-7});
  EXPECT_EQ(format_nested(d), "[0.3333333333333333, 0.1, 0.0000001]");
}

TEST(FormatNested, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor d = from_values<double>(DType::kF64, {2, 2}, {nan, inf, -inf, -0.0});
  EXPECT_EQ(format_nested(d), "[[NaN, inf],\n [-inf, -0]]");
}

TEST(FormatNested, Complex) {
  using C = std::complex<double>;
  const Tensor c = from_values<C>(DType::kC128, {2}, {C(1, 2), C(3, -4)});
  EXPECT_EQ(format_nested(c), "[1+2i, 3-4i]");
  using CF = std::complex<float>;
  const Tensor cf = from_values<CF>(DType::kC64, {1, 1}, {CF(0.1f, -1.0f / 3.0f)});
  EXPECT_EQ(format_nested(cf), "[[0.1-0.33333334i]]");
}

TEST(FormatNested, OtherDtypes) {
  EXPECT_EQ(format_nested(from_values<int8_t>(DType::kI8, {3}, {-128, 0, 127})), "[-128, 0, 127]");
  EXPECT_EQ(format_nested(from_values<uint8_t>(DType::kU8, {2}, {0, 255})), "[0, 255]");
  EXPECT_EQ(format_nested(from_values<uint8_t>(DType::kPred, {2}, {1, 0})), "[true, false]");
  EXPECT_EQ(format_nested(from_values<int64_t>(DType::kI64, {1}, {INT64_MIN})),
            "[-9223372036854775808]");
  EXPECT_EQ(format_nested(from_values<uint64_t>(DType::kU64, {1}, {UINT64_MAX})),
            "[18446744073709551615]");
  EXPECT_EQ(format_nested(from_values<Half>(DType::kF16, {2}, {to_half(0.1), to_half(-2)})),
            "[0.1, -2]");
  EXPECT_EQ(format_nested(from_values<BFloat16>(DType::kBF16, {1}, {to_bfloat16(1.0 / 3)})),
            "[0.334]");
}

TEST(FormatNested, AnyRankWithoutDeepRecursion) {
  // R allows any number of dims: 200000 axes of length 1 once overflowed the C stack through
  // one recursion per axis (R: "C stack usage is too close to the limit", then a crash).
  const size_t rank = 200000;
  const Tensor t = iota(Shape(rank, 1), 7);
  const std::string text = format_nested(t);
  EXPECT_EQ(text, std::string(rank, '[') + "7" + std::string(rank, ']'));
  // Two items on the first of many axes: one separator with a newline per axis below.
  const Tensor two = iota(Shape{2, 1, 1, 1}, 1);
  EXPECT_EQ(format_nested(two), "[[[[1]]],\n\n\n [[[2]]]]");
}

TEST(FormatNested, OptionsChangeTheLimits) {
  NestedFormatOptions options;
  options.elide_from = 1;
  options.limit_last = 3;
  options.limit_next_to_last = 1;
  EXPECT_EQ(format_nested(iota({5}), options), "[0, ..., 4]");
  // ndarray always shows the first item, even when limit / 2 is 0.
  EXPECT_EQ(format_nested(iota({3, 2}), options), "[[0, 1],\n ...]");
}

}  // namespace
}  // namespace ndbuf
