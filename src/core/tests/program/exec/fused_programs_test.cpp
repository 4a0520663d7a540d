// The tiles of fused groups: every group runs as one element program, with the unfused bits
// across tile edges (8 KiB tiles: 2048 f32, 1024 f64), periods shorter and longer than a
// tile, other layouts, NaN and signed zeros, and registers reused along a long chain.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "program/exec/fusion.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {
namespace {

// Runs `text` fused and unfused (expect_fusion_exact) and returns the fused results, checking
// that the fused run ran one fused group.
std::vector<Tensor> expect_spans(const std::string& text, const std::vector<Tensor>& inputs) {
  const int64_t before = fused_program_runs();
  std::vector<Tensor> out = expect_fusion_exact(text, inputs);
  EXPECT_EQ(fused_program_runs() - before, 1) << text;
  return out;
}

std::string vector_type(int64_t n, const char* dtype) {
  return "tensor<" + std::to_string(n) + "x" + dtype + ">";
}

// (x * a + y) / 3 - max(x, y), then min with y, abs, negate, square: every binary span
// kernel and some unary ones, with `a` a 0-d broadcast and 3 a splat constant.
std::string arithmetic_program(int64_t n, const char* dtype) {
  const std::string t = vector_type(n, dtype);
  const std::string s = std::string("tensor<") + dtype + ">";
  return "func.func @main(%x: " + t + ", %y: " + t + ", %a: " + s + ") -> " + t + " {\n" +
         "  %ab = stablehlo.broadcast_in_dim %a, dims = [] : (" + s + ") -> " + t + "\n" +
         "  %three = stablehlo.constant dense<3.0> : " + t + "\n" +
         "  %1 = stablehlo.multiply %x, %ab : " + t + "\n  %2 = stablehlo.add %1, %y : " + t +
         "\n  %3 = stablehlo.divide %2, %three : " + t +
         "\n  %4 = stablehlo.maximum %x, %y : " + t + "\n  %5 = stablehlo.subtract %3, %4 : " + t +
         "\n  %6 = stablehlo.minimum %5, %y : " + t + "\n  %7 = stablehlo.abs %6 : " + t +
         "\n  %8 = stablehlo.negate %7 : " + t + "\n  %9 = stablehlo.multiply %8, %7 : " + t +
         "\n  return %9 : " + t + "\n}\n";
}

double arithmetic_expected(double x, double y, double a) {
  const double v = std::fabs(std::min((x * a + y) / 3 - std::max(x, y), y));
  return -v * v;
}

TEST(FusedSpans, ArithmeticAtTileEdgesInBothFloatTypes) {
  for (int64_t n : {1, 1023, 1024, 1025, 2047, 2048, 2049, 16385, 50001}) {
    std::vector<float> xf = ramp(n, 0.013f, 0.2f), yf = ramp(n, 0.007f, -0.4f);
    std::vector<double> xd(xf.begin(), xf.end()), yd(yf.begin(), yf.end());
    const auto f =
        expect_spans(arithmetic_program(n, "f32"), {f32({n}, xf), f32({n}, yf), f32({}, {1.5f})});
    const auto d =
        expect_spans(arithmetic_program(n, "f64"), {f64({n}, xd), f64({n}, yd), f64({}, {1.5})});
    const auto* yf32 = static_cast<const float*>(f[0].data());
    const auto* yf64 = static_cast<const double*>(d[0].data());
    for (int64_t i = 0; i < n; i += 61) {
      const double expected = arithmetic_expected(xd[i], yd[i], 1.5);
      ASSERT_NEAR(yf32[i], expected, 1e-5 * (1 + std::fabs(expected))) << n << " " << i;
      ASSERT_NEAR(yf64[i], expected, 1e-12 * (1 + std::fabs(expected))) << n << " " << i;
    }
  }
}

// maximum / minimum propagate NaN and order -0 below +0; division by zero gives infinities.
TEST(FusedSpans, NaNSignedZerosAndInfinities) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> x = {nan, 1.0, -0.0, 0.0, 2.0, -3.0, 0.0};
  const std::vector<double> y = {1.0, nan, 0.0, -0.0, 0.0, 0.0, 0.0};
  const std::string t = vector_type(7, "f64");
  const std::string text =
      "func.func @main(%x: " + t + ", %y: " + t + ") -> (" + t + ", " + t + ", " + t +
      ") {\n  %1 = stablehlo.maximum %x, %y : " + t + "\n  %2 = stablehlo.minimum %x, %y : " + t +
      "\n  %3 = stablehlo.divide %x, %y : " + t + "\n  %4 = stablehlo.negate %1 : " + t +
      "\n  %5 = stablehlo.abs %2 : " + t + "\n  %6 = stablehlo.negate %3 : " + t +
      "\n  return %4, %5, %6 : " + t + ", " + t + ", " + t + "\n}\n";
  const int64_t before = fused_program_runs();
  const auto out = expect_fusion_exact(text, {f64({7}, x), f64({7}, y)});
  EXPECT_EQ(fused_program_runs() - before, 3);
  const std::vector<double> neg_max = values<double>(out[0]);
  const std::vector<double> abs_min = values<double>(out[1]);
  const std::vector<double> neg_div = values<double>(out[2]);
  EXPECT_TRUE(std::isnan(neg_max[0]) && std::isnan(neg_max[1]));
  EXPECT_TRUE(std::isnan(abs_min[0]) && std::isnan(abs_min[1]));
  // max(-0, +0) = +0, negated -0; max(+0, -0) = +0 too.
  EXPECT_TRUE(neg_max[2] == 0 && std::signbit(neg_max[2]));
  EXPECT_TRUE(neg_max[3] == 0 && std::signbit(neg_max[3]));
  EXPECT_EQ(neg_max[5], -0.0);
  EXPECT_EQ(abs_min[5], 3.0);
  EXPECT_EQ(neg_div[4], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(neg_div[5], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(neg_div[6]));  // 0 / 0
}

// Row biases whose period (the row length) is shorter than a tile, longer than one, or not
// dividing it; a bias over the last two axes of a 3-d array; a dense (non-splat) constant.
TEST(FusedSpans, PeriodicBroadcastsShorterAndLongerThanATile) {
  for (int64_t cols : {1, 3, 70, 2048, 3001}) {
    const int64_t rows = 37;
    const std::string m = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>";
    const std::string r = vector_type(cols, "f32");
    const std::string text = "func.func @main(%x: " + m + ", %r: " + r + ") -> " + m + " {\n" +
                             "  %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (" + r + ") -> " +
                             m + "\n  %1 = stablehlo.subtract %x, %rb : " + m +
                             "\n  %2 = stablehlo.tanh %1 : " + m + "\n  return %2 : " + m + "\n}\n";
    const std::vector<float> x = ramp(rows * cols, 0.01f, 0.0f), b = ramp(cols, 0.5f, 0.3f);
    const auto out = expect_spans(text, {f32({rows, cols}, x), f32({cols}, b)});
    const auto* z = static_cast<const float*>(out[0].data());
    for (int64_t i = 0; i < rows * cols; i += 7) {
      const double expected = std::tanh(static_cast<double>(x[i]) - b[i % cols]);
      ASSERT_NEAR(z[i], expected, 2e-6) << cols << " " << i;
    }
  }
  const std::string c = "tensor<4x3x5xf64>";
  const std::string text =
      "func.func @main(%x: " + c + ", %p: tensor<3x5xf64>) -> " + c + " {\n" +
      "  %pb = stablehlo.broadcast_in_dim %p, dims = [1, 2] : (tensor<3x5xf64>) -> " + c + "\n" +
      "  %k = stablehlo.constant dense<[[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], "
      "[11.0, 12.0, 13.0, 14.0, 15.0]], [[16.0, 17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0, "
      "25.0], [26.0, 27.0, 28.0, 29.0, 30.0]], [[31.0, 32.0, 33.0, 34.0, 35.0], [36.0, 37.0, 38.0, "
      "39.0, 40.0], [41.0, 42.0, 43.0, 44.0, 45.0]], [[46.0, 47.0, 48.0, 49.0, 50.0], [51.0, 52.0, "
      "53.0, 54.0, 55.0], [56.0, 57.0, 58.0, 59.0, 60.0]]]> : " +
      c + "\n  %1 = stablehlo.multiply %x, %pb : " + c + "\n  %2 = stablehlo.add %1, %k : " + c +
      "\n  return %2 : " + c + "\n}\n";
  std::vector<double> x(60), p(15);
  for (int i = 0; i < 60; ++i) x[i] = 0.25 * i;
  for (int i = 0; i < 15; ++i) p[i] = 100.0 + i;
  const auto out = expect_spans(text, {f64({4, 3, 5}, x), f64({3, 5}, p)});
  const std::vector<double> z = values<double>(out[0]);
  for (int i = 0; i < 60; ++i) ASSERT_EQ(z[i], x[i] * p[i % 15] + (i + 1)) << i;
}

// A column bias (period along a leading axis), a column-major operand and f16 are gathered
// or computed through their kernels tile by tile; the results still match unfused runs.
TEST(FusedSpans, OtherLayoutsAndDtypesRunTileByTile) {
  const std::string m = "tensor<50x40xf32>";
  const std::string column =
      "func.func @main(%x: " + m + ", %c: tensor<50xf32>) -> " + m + " {\n" +
      "  %cb = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<50xf32>) -> " + m +
      "\n  %1 = stablehlo.add %x, %cb : " + m + "\n  return %1 : " + m + "\n}\n";
  const std::vector<float> x = ramp(2000, 0.1f, 0.0f), c = ramp(50, 0.2f, 1.0f);
  expect_spans(column, {f32({50, 40}, x), f32({50}, c)});
  const Tensor transposed = f32({40, 50}, x);
  const Tensor column_major(transposed.storage(), DType::kF32, {50, 40}, {1, 50});
  const std::string dense = "func.func @main(%x: " + m + ", %y: " + m + ") -> " + m + " {\n" +
                            "  %1 = stablehlo.add %x, %y : " + m +
                            "\n  %2 = stablehlo.negate %1 : " + m + "\n  return %2 : " + m +
                            "\n}\n";
  expect_spans(dense, {column_major, f32({50, 40}, x)});
  expect_spans(dense, {f32({50, 40}, x), f32({50, 40}, x)});
  const std::string h = vector_type(3000, "f16");
  const std::string half = "func.func @main(%x: " + h + ") -> " + h + " {\n" +
                           "  %1 = stablehlo.multiply %x, %x : " + h +
                           "\n  %2 = stablehlo.negate %1 : " + h + "\n  return %2 : " + h + "\n}\n";
  expect_spans(half, {f16({3000}, std::vector<double>(3000, 1.5))});
}

// Exponentials, logarithms and roots: the unfused bits, and close to the double results; a
// value read by several later steps keeps its register until its last reader.
TEST(FusedSpans, MathFunctionsAndLongLivedValues) {
  const int64_t n = 5000;
  const std::string t = vector_type(n, "f64");
  const std::string text =
      "func.func @main(%x: " + t + ") -> " + t + " {\n" + "  %1 = stablehlo.exponential %x : " + t +
      "\n  %2 = stablehlo.log %1 : " + t + "\n  %3 = stablehlo.sqrt %1 : " + t +
      "\n  %4 = stablehlo.rsqrt %1 : " + t + "\n  %5 = stablehlo.logistic %x : " + t +
      "\n  %6 = stablehlo.multiply %3, %4 : " + t + "\n  %7 = stablehlo.add %6, %5 : " + t +
      "\n  %8 = stablehlo.add %7, %2 : " + t + "\n  %9 = stablehlo.subtract %8, %1 : " + t +
      "\n  return %9 : " + t + "\n}\n";
  std::vector<double> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = -4.0 + 8.0 * static_cast<double>(i) / n;
  const auto out = expect_spans(text, {f64({n}, x)});
  const std::vector<double> z = values<double>(out[0]);
  for (int64_t i = 0; i < n; i += 13) {
    const double e = std::exp(x[i]);
    const double expected = 1.0 + 1.0 / (1.0 + std::exp(-x[i])) + x[i] - e;
    ASSERT_NEAR(z[i], expected, 1e-12 * (1 + std::fabs(e))) << i;
  }
}

}  // namespace
}  // namespace ndbuf::program::testing
