// Programs over the 8-bit buffer floats (f8E4M3FN, f8E5M2) and the program-only small floats:
// arithmetic in f32 rounded once, convert, bitcast, compare / select, structural moves, and the
// verifier's refusal of program-only types elsewhere. Expected bit patterns are worked out by
// hand from each format's definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::run;
using testing::run_error;
using testing::tensor_of;

std::vector<uint8_t> bytes_of(const Tensor& t) {
  const Tensor d = make_dense(t, Order::kRowMajor);
  const auto* p = static_cast<const uint8_t*>(d.data());
  return std::vector<uint8_t>(p, p + d.numel());
}

std::vector<float> floats_of(const Tensor& t) {
  const Tensor d = make_dense(t, Order::kRowMajor);
  const auto* p = static_cast<const float*>(d.data());
  return std::vector<float>(p, p + d.numel());
}

Tensor e4m3fn(const std::vector<uint8_t>& bits) {
  return tensor_of(DType::kF8E4M3FN, {static_cast<int64_t>(bits.size())}, bits);
}

TEST(SmallFloats, E4M3FNArithmeticRoundsOnceAndOverflowsToNaN) {
  const std::string text =
      "func.func @main(%x: tensor<4xf8E4M3FN>, %y: tensor<4xf8E4M3FN>) -> (tensor<4xf8E4M3FN>, "
      "tensor<4xf8E4M3FN>) {\n"
      "  %0 = stablehlo.add %x, %y : tensor<4xf8E4M3FN>\n"
      "  %1 = stablehlo.multiply %x, %y : tensor<4xf8E4M3FN>\n"
      "  return %0, %1 : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>\n}";
  // x = 1, 1.125, 448, 3; y = 1, 0.0625 (2^-4: exponent field 3), 448, 3.
  const auto out = run(text, {e4m3fn({0x38, 0x39, 0x7E, 0x44}), e4m3fn({0x38, 0x18, 0x7E, 0x44})});
  // Sums: 2 (0x40); 1.1875 ties between 1.125 and 1.25 (even mantissa): 1.25 (0x3A); 896 is
  // past the range: NaN (0x7F); 6 (0x4C).
  EXPECT_EQ(bytes_of(out[0]), (std::vector<uint8_t>{0x40, 0x3A, 0x7F, 0x4C}));
  // Products: 1; 0.0703125 = 1.125 * 2^-4 (0x19); NaN; 9 = 1.125 * 2^3 (0x51).
  EXPECT_EQ(bytes_of(out[1]), (std::vector<uint8_t>{0x38, 0x19, 0x7F, 0x51}));
}

TEST(SmallFloats, E5M2ConvertCompareSelectAndBitcast) {
  const std::string text =
      "func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xf8E5M2>) {\n"
      "  %0 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf8E5M2>\n"
      "  %1 = stablehlo.convert %0 : (tensor<4xf8E5M2>) -> tensor<4xf32>\n"
      "  %2 = stablehlo.bitcast_convert %0 : (tensor<4xf8E5M2>) -> tensor<4xi8>\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<4xf8E5M2>\n"
      "  %3 = stablehlo.compare GT, %0, %z : (tensor<4xf8E5M2>, tensor<4xf8E5M2>) -> "
      "tensor<4xi1>\n"
      "  %4 = stablehlo.select %3, %0, %z : tensor<4xi1>, tensor<4xf8E5M2>\n"
      "  return %1, %2, %4 : tensor<4xf32>, tensor<4xi8>, tensor<4xf8E5M2>\n}";
  const auto out = run(text, {testing::f32({4}, {0.1f, 61440.0f, -3.0f, 1e-9f})});
  // 0.1 -> 1.5 * 2^-4; 61440 ties between 57344 (odd) and 2^16: Inf; -3 exact; 1e-9 -> 0.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{0.09375f, inf, -3.0f, 0.0f}));
  EXPECT_EQ(bytes_of(out[1]), (std::vector<uint8_t>{0x2E, 0x7C, 0xC2, 0x00}));
  EXPECT_EQ(bytes_of(out[2]), (std::vector<uint8_t>{0x2E, 0x7C, 0x00, 0x00}));
}

TEST(SmallFloats, StructuralOpsMoveTheBytes) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf8E4M3FN>) -> tensor<3x2xf8E4M3FN> {\n"
      "  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf8E4M3FN>) -> "
      "tensor<3x2xf8E4M3FN>\n"
      "  return %0 : tensor<3x2xf8E4M3FN>\n}";
  const auto out = run(text, {tensor_of<uint8_t>(DType::kF8E4M3FN, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(bytes_of(out[0]), (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(SmallFloats, ProgramOnlyTypesInConstantsAndConvert) {
  const std::string text =
      "func.func @main() -> (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) {\n"
      "  %0 = stablehlo.constant dense<[-0.0, 0x7F, 1000.0]> : tensor<3xf8E4M3FNUZ>\n"
      "  %1 = stablehlo.convert %0 : (tensor<3xf8E4M3FNUZ>) -> tensor<3xf32>\n"
      "  %2 = stablehlo.constant dense<[2.5, -7.0, 0.25]> : tensor<3xf32>\n"
      "  %3 = stablehlo.convert %2 : (tensor<3xf32>) -> tensor<3xf4E2M1FN>\n"
      "  %4 = stablehlo.convert %3 : (tensor<3xf4E2M1FN>) -> tensor<3xf32>\n"
      "  %5 = stablehlo.constant dense<[3.0, 0.1]> : tensor<2xf8E8M0FNU>\n"
      "  %6 = stablehlo.convert %5 : (tensor<2xf8E8M0FNU>) -> tensor<2xf32>\n"
      "  return %1, %4, %6 : tensor<3xf32>, tensor<3xf32>, tensor<2xf32>\n}";
  const auto out = run(text);
  // FNUZ has no -0; 0x7F is 1.875 * 2^(15 - 8) = 240; 1000 overflows to its NaN.
  const auto fnuz = floats_of(out[0]);
  EXPECT_EQ(fnuz[0], 0.0f);
  EXPECT_FALSE(std::signbit(fnuz[0]));
  EXPECT_EQ(fnuz[1], 240.0f);
  EXPECT_TRUE(std::isnan(fnuz[2]));
  // f4E2M1FN: 2.5 ties between 2 (even) and 3; -7 saturates to -6; 0.25 ties to 0.
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{2.0f, -6.0f, 0.0f}));
  // f8E8M0FNU holds powers of two: 3 ties between 2 and 4 and goes up; 0.1 -> 0.125.
  EXPECT_EQ(floats_of(out[2]), (std::vector<float>{4.0f, 0.125f}));
}

TEST(SmallFloats, ChecksCompareProgramOnlyValues) {
  EXPECT_EQ(run_error("func.func @main() -> () {\n"
                      "  %0 = stablehlo.constant dense<[0.1, 1.0]> : tensor<2xf6E3M2FN>\n"
                      "  check.expect_eq_const %0, dense<[0.125, 2.0]> : tensor<2xf6E3M2FN>\n"
                      "  return\n}"),
            "check.expect_eq_const failed at index (1): got 1, expected 2");
}

TEST(SmallFloats, ProgramOnlyTypesElsewhereAreRefused) {
  EXPECT_EQ(compile_error("func.func @main() -> tensor<2xf32> {\n"
                          "  %0 = stablehlo.constant dense<1.0> : tensor<2xf8E5M2FNUZ>\n"
                          "  %1 = stablehlo.add %0, %0 : tensor<2xf8E5M2FNUZ>\n"
                          "  %2 = stablehlo.convert %1 : (tensor<2xf8E5M2FNUZ>) -> tensor<2xf32>\n"
                          "  return %2 : tensor<2xf32>\n}"),
            "3:8: element type f8E5M2FNUZ is not supported by this runtime in 'stablehlo.add' "
            "(only in constants and convert)");
  EXPECT_EQ(compile_error("func.func @main(%x: tensor<2xf8E3M4>) -> tensor<2xf32> {\n"
                          "  %0 = stablehlo.convert %x : (tensor<2xf8E3M4>) -> tensor<2xf32>\n"
                          "  return %0 : tensor<2xf32>\n}"),
            "1:11: @main cannot take or return element type f8E3M4, which is not a buffer dtype "
            "(convert it inside the program)");
  EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n"
                          "  %0 = stablehlo.constant dense<0x40> : tensor<f6E2M3FN>\n"
                          "  %1 = stablehlo.convert %0 : (tensor<f6E2M3FN>) -> tensor<f32>\n"
                          "  return %1 : tensor<f32>\n}"),
            "2:33: bit pattern '0x40' is wider than f6E2M3FN");
}

}  // namespace
}  // namespace ndbuf::program
