// What plan_text() shows of control flow: the steps of a while loop's condition and body and of
// an if's branches, indented under the step that runs them, fused groups included.
#include <gtest/gtest.h>

#include <string>

#include "program/exec/compile.hpp"

namespace ndbuf::program {
namespace {

constexpr const char* kLoopThenIf =
    R"(func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %n = stablehlo.constant dense<3> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %i2 = stablehlo.add %i, %one : tensor<i64>
      %e = stablehlo.exponential %a : tensor<4xf32>
      %s = stablehlo.add %e, %a : tensor<4xf32>
      stablehlo.return %i2, %s : tensor<i64>, tensor<4xf32>
    }
  %y = "stablehlo.if"(%p) ({
      %neg = stablehlo.negate %r#1 : tensor<4xf32>
      stablehlo.return %neg : tensor<4xf32>
    }, {
      stablehlo.return %r#1 : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
)";

TEST(PlanText, ShowsTheRegionsOfControlFlowIndented) {
  const std::string expected =
      "@main: 5 steps (every result dense row-major)\n"
      "  1. stablehlo.constant -> tensor<i64>, 8 B [line 2]\n"
      "  2. stablehlo.constant -> tensor<i64>, 8 B [line 3]\n"
      "  3. stablehlo.constant -> tensor<i64>, 8 B [line 4]\n"
      "  4. stablehlo.while -> tensor<i64>, tensor<4xf32>, 24 B [line 5]\n"
      "       cond: 1 step\n"
      "         1. stablehlo.compare -> tensor<i1>, 1 B [line 7]\n"
      "       body: 2 steps\n"
      "         1. stablehlo.add -> tensor<i64>, 8 B [line 10]\n"
      "         2. fusion of 2 ops -> tensor<4xf32>, 16 B [lines 11-12]\n"
      "              exponential, add\n"
      "  5. stablehlo.if -> tensor<4xf32>, 16 B [line 15]\n"
      "       true branch: 1 step\n"
      "         1. stablehlo.negate -> tensor<4xf32>, 16 B [line 16]\n"
      "       false branch: 0 steps\n";
  EXPECT_EQ(plan_text(*compile(kLoopThenIf)), expected);
}

// A transpose read by an element-wise op is read through its strides inside the fused step,
// which then holds one op.
TEST(PlanText, CountsAOneOpFusionInTheSingular) {
  const std::string text =
      R"(func.func @main(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.add %t, %y : tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}
)";
  const std::string expected =
      "@main: 1 step (every result dense)\n"
      "  1. fusion of 1 op -> tensor<3x2xf32>, 24 B [line 3; column-major when its operands "
      "are]\n"
      "       add\n";
  EXPECT_EQ(plan_text(*compile(text)), expected);
}

}  // namespace
}  // namespace ndbuf::program
