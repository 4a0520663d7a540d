// The chlo special functions against values from R (besselI(x, 1, expon.scaled = TRUE),
// psigamma(), tan()) and closed forms of the zeta function; constant_like and the broadcasting
// binary forms against hand-worked results.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "program/ops/elementwise/special_functions.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::f32;
using testing::f64;
using testing::run;
using testing::values;

constexpr double kPi = 3.14159265358979323846;

void expect_relative(double got, double want, double tolerance) {
  EXPECT_LE(std::fabs(got - want), tolerance * std::fabs(want)) << got << " vs " << want;
}

TEST(ChloOps, BesselI1eMatchesR) {
  const double xs[] = {0.5, 1, 2.5, 10, 60, 800, 1e-3, 50, 50.5};
  const double r[] = {0.156420803184871698,   0.207910415349708444, 0.206584649531266540,
                      0.121262681384455548,   0.051179630189028727, 0.014098125406526987,
                      0.00049950031235422142, 0.055993123892895388, 0.055719462662949124};
  for (size_t k = 0; k < std::size(xs); ++k)
    expect_relative(detail::bessel_i1e(xs[k]), r[k], 1e-14);
  expect_relative(detail::bessel_i1e(-3), -0.19682671329730084, 1e-14);
  EXPECT_EQ(detail::bessel_i1e(0), 0);
  EXPECT_EQ(detail::bessel_i1e(INFINITY), 0);
  EXPECT_TRUE(std::isnan(detail::bessel_i1e(NAN)));
}

TEST(ChloOps, PolygammaMatchesR) {
  // psigamma(x, n) in R.
  expect_relative(detail::polygamma(1, 0.5), 4.93480220054467900, 1e-13);
  expect_relative(detail::polygamma(1, 3.7), 0.31003785767003833, 1e-13);
  expect_relative(detail::polygamma(3, 0.5), 97.409091034002443621, 1e-13);
  expect_relative(detail::polygamma(3, 3.7), 0.058279217956563621, 1e-13);
  expect_relative(detail::polygamma(2, -1.5), -0.23620405164171604, 1e-12);
  expect_relative(detail::polygamma(5, 1), 122.0811674381339174, 1e-13);
  expect_relative(detail::polygamma(5, 2), 2.0811674381338969, 1e-13);
  expect_relative(detail::polygamma(1, 0.25), 17.197329154507109, 1e-13);
  expect_relative(detail::polygamma(2, 1e-3), -2000000002.3976321, 1e-13);
  expect_relative(detail::polygamma(0, 2.5), 0.70315664064524341, 1e-13);
  // n must be a whole number >= 0.
  EXPECT_TRUE(std::isnan(detail::polygamma(1.5, 2)));
  EXPECT_TRUE(std::isnan(detail::polygamma(-1, 2)));
}

TEST(ChloOps, ZetaClosedFormsAndDomain) {
  expect_relative(detail::hurwitz_zeta(2, 1), kPi * kPi / 6, 1e-15);
  expect_relative(detail::hurwitz_zeta(3, 2), 0.2020569031595942854, 1e-14);   // zeta(3) - 1
  expect_relative(detail::hurwitz_zeta(4, 0.5), std::pow(kPi, 4) / 6, 1e-14);  // 15 zeta(4)
  expect_relative(detail::hurwitz_zeta(2, 1000), 0.0010005001666666335,
                  1e-14);  // psigamma(1000, 1)
  EXPECT_EQ(detail::hurwitz_zeta(1, 2), INFINITY);
  EXPECT_TRUE(std::isnan(detail::hurwitz_zeta(0.5, 2)));
  EXPECT_TRUE(std::isnan(detail::hurwitz_zeta(2.5, -0.5)));
  EXPECT_EQ(detail::hurwitz_zeta(2, -1), INFINITY);
  EXPECT_TRUE(std::isnan(detail::hurwitz_zeta(3, 0)));
}

std::string binary_main(const std::string& op, const std::string& type) {
  return "func.func @main(%a: " + type + ", %b: " + type + ") -> " + type + " {\n  %r = " + op +
         " %a, %b : " + type + "\n  return %r : " + type + "\n}\n";
}

TEST(ChloOps, NextAfterStepsInTheOperandsOwnType) {
  const auto f = run(binary_main("chlo.next_after", "tensor<4xf32>"),
                     {f32({4}, {1, 1, 0, 2}), f32({4}, {2, 0, -1, 2})});
  EXPECT_EQ(values<float>(f[0]), (std::vector<float>{1 + 0x1p-23f, 1 - 0x1p-24f, -0x1p-149f, 2}));
  const auto h = run(binary_main("chlo.next_after", "tensor<3xf16>"),
                     {testing::f16({3}, {1, 1, 0}), testing::f16({3}, {2, 0, 1})});
  EXPECT_EQ(testing::half_values(h[0]), (std::vector<double>{1 + 0x1p-10, 1 - 0x1p-11, 0x1p-24}));
  const auto b = run(binary_main("chlo.next_after", "tensor<2xbf16>"),
                     {testing::bf16({2}, {1, -1}), testing::bf16({2}, {2, -2})});
  EXPECT_EQ(testing::half_values(b[0]), (std::vector<double>{1 + 0x1p-7, -1 - 0x1p-7}));
}

TEST(ChloOps, ElementwiseFormsRunThroughThePrograms) {
  const auto p =
      run(binary_main("chlo.polygamma", "tensor<2xf64>"), {f64({2}, {1, 3}), f64({2}, {0.5, 3.7})});
  expect_relative(values<double>(p[0])[0], 4.93480220054467900, 1e-13);
  expect_relative(values<double>(p[0])[1], 0.058279217956563621, 1e-13);
  const auto z = run(binary_main("chlo.zeta", "tensor<1xf32>"), {f32({1}, {2}), f32({1}, {1})});
  EXPECT_FLOAT_EQ(values<float>(z[0])[0], static_cast<float>(kPi * kPi / 6));
  const std::string unary =
      "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %t = chlo.tan %a : tensor<2xf32>\n  %i = chlo.bessel_i1e %t : tensor<2xf32>\n"
      "  %r = chlo.conj %i : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n";
  const auto u = run(unary, {f32({2}, {0.3f, -2})});
  // besselI(tan(0.3), 1, TRUE) and besselI(tan(-2), 1, TRUE) in R (tan(-2) > 0).
  expect_relative(values<float>(u[0])[0], 0.11487939120015186, 1e-6);
  expect_relative(values<float>(u[0])[1], 0.21234347267023751, 1e-6);
}

TEST(ChloOps, ComplexTanAndConj) {
  using Z = std::complex<double>;
  const std::string text =
      "func.func @main(%a: tensor<1xcomplex<f64>>) -> tensor<1xcomplex<f64>> {\n"
      "  %t = chlo.tan %a : tensor<1xcomplex<f64>>\n  %r = chlo.conj %t : tensor<1xcomplex<f64>>\n"
      "  return %r : tensor<1xcomplex<f64>>\n}\n";
  const auto r = run(text, {testing::tensor_of<Z>(DType::kC128, {1}, {Z(0.5, 1)})});
  const Z got = values<Z>(r[0])[0];
  // tan(0.5+1i) in R: 0.19557731006593401+0.84296620484578333i; conj flips the imaginary part.
  expect_relative(got.real(), 0.19557731006593401, 1e-14);
  expect_relative(got.imag(), -0.84296620484578333, 1e-14);
}

TEST(ChloOps, ConstantLikeAndBroadcastingForms) {
  const std::string text =
      "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, "
      "tensor<2x3xi1>, tensor<2x3xf32>) {\n"
      "  %one = \"chlo.constant_like\"(%a) {value = 1.0 : f32} : (tensor<2x3xf32>) -> "
      "tensor<2x3xf32>\n"
      "  %s = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
      "  %c = chlo.broadcast_compare %s, %one {comparison_direction = #chlo<comparison_direction "
      "GT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>\n"
      "  %m = chlo.broadcast_multiply %b, %a {broadcast_dimensions = array<i64: 1>} : "
      "(tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  return %s, %c, %m : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xf32>\n}\n";
  const auto r = run(text, {f32({2, 3}, {0, 1, 2, 3, 4, 5}), f32({3}, {10, -2, 0})});
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{10, -1, 2, 13, 2, 5}));
  EXPECT_EQ(values<uint8_t>(r[1]), (std::vector<uint8_t>{1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(values<float>(r[2]), (std::vector<float>{0, -2, 0, 30, -8, 0}));
}

std::string mulhi_main(const std::string& type) {
  return "func.func @main(%a: " + type + ", %b: " + type + ") -> " + type +
         " {\n  %r = \"chlo.mulhi\"(%a, %b) : (" + type + ", " + type + ") -> " + type +
         "\n  return %r : " + type + "\n}\n";
}

TEST(ChloOps, MulhiIsTheHighHalfOfTheWideProduct) {
  using testing::tensor_of;
  const auto i8 =
      run(mulhi_main("tensor<3xi8>"), {tensor_of<int8_t>(DType::kI8, {3}, {64, -64, -64}),
                                       tensor_of<int8_t>(DType::kI8, {3}, {4, 4, -4})});
  EXPECT_EQ(values<int8_t>(i8[0]), (std::vector<int8_t>{1, -1, 1}));  // 256, -256, 256
  const auto i32 =
      run(mulhi_main("tensor<1xi32>"), {testing::i32({1}, {1 << 30}), testing::i32({1}, {8})});
  EXPECT_EQ(values<int32_t>(i32[0]), (std::vector<int32_t>{2}));  // 2^33
  const uint64_t max = ~0ull;
  const auto u64 =
      run(mulhi_main("tensor<2xui64>"), {tensor_of<uint64_t>(DType::kU64, {2}, {1ull << 63, max}),
                                         tensor_of<uint64_t>(DType::kU64, {2}, {4, max})});
  // 2^65, and (2^64 - 1)^2 = 2^128 - 2^65 + 1.
  EXPECT_EQ(values<uint64_t>(u64[0]), (std::vector<uint64_t>{2, max - 1}));
  const int64_t min = INT64_MIN;
  const auto i64 =
      run(mulhi_main("tensor<5xi64>"), {testing::i64({5}, {-1, -1, min, min, 3}),
                                        testing::i64({5}, {-1, 1, min, 2, -(int64_t(1) << 62)})});
  // 1, -1, 2^126, -2^64 and -3 * 2^62: high halves 0, -1, 2^62, -1, -1.
  EXPECT_EQ(values<int64_t>(i64[0]), (std::vector<int64_t>{0, -1, int64_t(1) << 62, -1, -1}));
  EXPECT_EQ(compile_error(mulhi_main("tensor<2xf32>")),
            "2:8: 'chlo.mulhi' operands tensor<2xf32> must have an integer element type");
}

TEST(ChloOps, CompileErrors) {
  EXPECT_EQ(
      compile_error("func.func @main(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> "
                    "tensor<2x3xf32> {\n  %r = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, "
                    "tensor<2xf32>) -> tensor<2x3xf32>\n  return %r : tensor<2x3xf32>\n}\n"),
      "2:8: 'chlo.broadcast_add' cannot broadcast tensor<2x3xf32> and tensor<2xf32> together");
  EXPECT_EQ(compile_error("func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> "
                          "tensor<3xf32> {\n  %r = chlo.broadcast_add %a, %b : (tensor<2xf32>, "
                          "tensor<2xf32>) -> tensor<3xf32>\n  return %r : tensor<3xf32>\n}\n"),
            "2:8: 'chlo.broadcast_add' result type tensor<3xf32> should be tensor<2xf32>");
  EXPECT_EQ(compile_error("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                          "  %r = \"chlo.constant_like\"(%a) {value = 1 : i32} : (tensor<2xf32>) "
                          "-> tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n"),
            "2:8: 'chlo.constant_like' value must be a scalar of the operand's element type f32");
  EXPECT_EQ(compile_error(binary_main("chlo.zeta", "tensor<2xi32>")),
            "2:8: 'chlo.zeta' chlo.zeta does not accept operands of type i32.");
}

}  // namespace
}  // namespace ndbuf::program
