// Tests of reduce_window with a body that is neither a recognised fold nor interpreted: it runs
// as an element program over tiles of result positions. Checked against the padded-array
// reference on random windows, for a variadic body by hand, and for stopping on interrupts.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "tests/program/ops/reduction/window_reference.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

std::string dims(const std::vector<int64_t>& v) {
  std::ostringstream s;
  for (size_t k = 0; k < v.size(); ++k) s << (k ? "x" : "") << v[k];
  return s.str();
}

std::string list(const std::vector<int64_t>& v) {
  std::ostringstream s;
  for (size_t k = 0; k < v.size(); ++k) s << (k ? ", " : "") << v[k];
  return s.str();
}

// acc * x + x over f64 windows: two ops, so no recognised fold.
std::string program(const Shape& in, const Shape& out, const WindowConfig& w) {
  const std::string t = "tensor<" + dims(in) + "xf64>", r = "tensor<" + dims(out) + "xf64>";
  std::string padding;
  for (const auto& p : w.padding) {
    padding += (padding.empty() ? "[" : ", [") + std::to_string(p.first) + ", " +
               std::to_string(p.second) + "]";
  }
  return "func.func @main(%x: " + t + ", %i: tensor<f64>) -> " + r +
         " {\n  %0 = \"stablehlo.reduce_window\"(%x, %i) ({\n  ^bb0(%a: tensor<f64>, %b: "
         "tensor<f64>):\n    %m = stablehlo.multiply %a, %b : tensor<f64>\n    %s = "
         "stablehlo.add %m, %b : tensor<f64>\n    stablehlo.return %s : tensor<f64>\n  }) "
         "{window_dimensions = array<i64: " +
         list(w.window_dimensions) + ">, window_strides = array<i64: " + list(w.window_strides) +
         ">, base_dilations = array<i64: " + list(w.base_dilations) +
         ">, window_dilations = array<i64: " + list(w.window_dilations) + ">, padding = dense<[" +
         padding + "]> : tensor<" + std::to_string(in.size()) + "x2xi64>} : (" + t +
         ", tensor<f64>) -> " + r + "\n  return %0 : " + r + "\n}\n";
}

TEST(ProgramReduceWindowProgram, MatchesPaddedArrayReference) {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int nonempty = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const size_t rank = 1 + rng() % 3;
    const Shape s = random_shape(rng, rank, 6);
    const WindowConfig w = random_window(rng, rank);
    std::vector<double> x(checked_numel(s));
    for (auto& v : x) v = static_cast<double>(pick(-2, 2));
    Shape out;
    const auto want = naive(x, s, w, 0.5, out, [](double a, double b) { return a * b + b; });
    if (checked_numel(out) > 0) ++nonempty;
    const auto got = run(program(s, out, w), {f64(s, x), f64({}, {0.5})});
    ASSERT_EQ(got[0].shape(), out) << trial;
    EXPECT_EQ(values<double>(got[0]), want) << trial;
  }
  EXPECT_GT(nonempty, 15);
}

TEST(ProgramReduceWindowProgram, VariadicBodyByHand) {
  // (sum of x * y, largest y) over windows of 2 of [1 2 3 4] and [5 -1 2 0].
  const std::string e = "tensor<f32>";
  const std::string text =
      "func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<f32>, %j: tensor<f32>) "
      "-> (tensor<3xf32>, tensor<3xf32>) {\n  %0:2 = \"stablehlo.reduce_window\"(%x, %y, %i, "
      "%j) ({\n  ^bb0(%a: " +
      e + ", %b: " + e + ", %c: " + e + ", %d: " + e +
      "):\n    %p = stablehlo.multiply %c, %d : tensor<f32>\n    %s = stablehlo.add %a, %p : "
      "tensor<f32>\n    %m = stablehlo.maximum %b, %d : tensor<f32>\n    stablehlo.return %s, "
      "%m : tensor<f32>, tensor<f32>\n  }) {window_dimensions = array<i64: 2>} : (tensor<4xf32>, "
      "tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>)\n  return "
      "%0#0, %0#1 : tensor<3xf32>, tensor<3xf32>\n}\n";
  const auto r =
      run(text, {f32({4}, {1, 2, 3, 4}), f32({4}, {5, -1, 2, 0}), scalar_f32(0), scalar_f32(-100)});
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{3, 4, 6}));
  EXPECT_EQ(values<float>(r[1]), (std::vector<float>{5, 2, 2}));
}

}  // namespace
}  // namespace ndbuf::program
