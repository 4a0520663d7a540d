// Transpose sinking: which transposes move onto operands and which stay, that a chain with
// transposes between its links then fuses into one step, and that every run gives the bits of
// the run without the pass (and hand-computed values).
#include "program/passes/sink_transposes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/passes/after_pass.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

std::vector<Tensor> run(const std::string& text, const std::vector<Tensor>& inputs, bool sink) {
  CompileOptions options;
  options.sink_transposes = sink;
  return execute(*compile(text, Device{}, options), inputs);
}

std::vector<Tensor> expect_unsunk_bits(const std::string& text, const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> sunk = run(text, inputs, true);
  testing::expect_same_results(sunk, run(text, inputs, false), "runs with and without sinking");
  return sunk;
}

// How many transposes moved, and @main's op names afterwards.
testing::AfterPass sunk(const std::string& text) {
  return testing::after_pass(text, sink_transposes);
}

// d1 = x^T + b, d2 = d1^T + b, d3 = d2^T + b on 2 x 2.
const std::string kChain =
    "func.func @main(%x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
    "  %t1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "  %d1 = stablehlo.add %t1, %b : tensor<2x2xf32>\n"
    "  %t2 = stablehlo.transpose %d1, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "  %d2 = stablehlo.add %t2, %b : tensor<2x2xf32>\n"
    "  %t3 = stablehlo.transpose %d2, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
    "  %d3 = stablehlo.add %t3, %b : tensor<2x2xf32>\n"
    "  return %d3 : tensor<2x2xf32>\n"
    "}\n";

// The chain by hand: element (i, j) of a transpose is element (j, i).
std::vector<float> chain_by_hand(const std::vector<float>& x, const std::vector<float>& b) {
  std::vector<float> d = x;
  for (int link = 0; link < 3; ++link) {
    std::vector<float> next(4);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) next[i * 2 + j] = d[j * 2 + i] + b[i * 2 + j];
    }
    d = next;
  }
  return d;
}

TEST(SinkTransposes, AChainWithTransposesBetweenItsLinksFusesIntoOneStep) {
  const testing::AfterPass s = sunk(kChain);
  EXPECT_GE(s.count, 2);
  // Only transposes of the arguments are left, read by the adds.
  for (const std::string& name : s.ops) {
    EXPECT_TRUE(name == "stablehlo.transpose" || name == "stablehlo.add" || name == "return")
        << name;
  }
  const std::string plan = plan_text(compile_module(kChain, true));
  EXPECT_NE(plan.find("@main: 1 step"), std::string::npos) << plan;
  EXPECT_NE(plan.find("moved onto operands"), std::string::npos) << plan;
  CompileOptions plain;
  plain.sink_transposes = false;
  EXPECT_NE(plan_text(compile_module(kChain, true, plain)).find("@main: 3 steps"),
            std::string::npos);
  const std::vector<float> x = {1, 2, 3, 4}, b = {0.5F, -1, 10, 0.25F};
  const auto out = expect_unsunk_bits(kChain, {f32({2, 2}, x), f32({2, 2}, b)});
  EXPECT_EQ(values<float>(out[0]), chain_by_hand(x, b));
}

TEST(SinkTransposes, AResultWithOtherReadersStays) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {\n"
      "  %e = stablehlo.exponential %x : tensor<2x3xf32>\n"
      "  %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  return %t, %e : tensor<3x2xf32>, tensor<2x3xf32>\n"
      "}\n";
  EXPECT_EQ(sunk(text).count, 0);
}

TEST(SinkTransposes, OnlyElementwiseProducersOfSmallResults) {
  const std::string product =
      "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
      "  %d = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : "
      "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  %t = stablehlo.transpose %d, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>\n"
      "  return %t : tensor<2x2xf32>\n"
      "}\n";
  EXPECT_EQ(sunk(product).count, 0);
  // 512 x 256 f32 is 512 KiB, above kSinkableBytes: read strided it would leave the caches.
  static_assert(512 * 256 * 4 > kSinkableBytes);
  const std::string large =
      "func.func @main(%x: tensor<512x256xf32>) -> tensor<256x512xf32> {\n"
      "  %e = stablehlo.negate %x : tensor<512x256xf32>\n"
      "  %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<512x256xf32>) -> "
      "tensor<256x512xf32>\n"
      "  return %t : tensor<256x512xf32>\n"
      "}\n";
  EXPECT_EQ(sunk(large).count, 0);
}

TEST(SinkTransposes, ScalarOperandsNeedNoTranspose) {
  // clamp(lo, x, hi) with scalar bounds, transposed: clamp(lo, x^T, hi).
  const std::string text =
      "func.func @main(%lo: tensor<f32>, %x: tensor<2x3xf32>, %hi: tensor<f32>) -> "
      "tensor<3x2xf32> {\n"
      "  %c = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> "
      "tensor<2x3xf32>\n"
      "  %t = stablehlo.transpose %c, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  return %t : tensor<3x2xf32>\n"
      "}\n";
  const testing::AfterPass s = sunk(text);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.ops, (std::vector<std::string>{"stablehlo.transpose", "stablehlo.clamp", "return"}));
  const auto out = expect_unsunk_bits(
      text, {testing::scalar_f32(2), f32({2, 3}, {1, 2, 3, 4, 5, 6}), testing::scalar_f32(4)});
  // x^T is [[1, 4], [2, 5], [3, 6]], clamped to [2, 4].
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 4, 2, 4, 3, 4}));
}

TEST(SinkTransposes, ALoopBodyWithTransposesRunsAsOneFusedStep) {
  const std::string text =
      "func.func @main(%x: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
      "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %n = stablehlo.constant dense<3> : tensor<i64>\n"
      "  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<2x2xf32>\n"
      "    cond {\n"
      "      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    } do {\n"
      "      %i2 = stablehlo.add %i, %one : tensor<i64>\n"
      "      %t1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2xf32>) -> "
      "tensor<2x2xf32>\n"
      "      %d1 = stablehlo.add %t1, %b : tensor<2x2xf32>\n"
      "      %t2 = stablehlo.transpose %d1, dims = [1, 0] : (tensor<2x2xf32>) -> "
      "tensor<2x2xf32>\n"
      "      %d2 = stablehlo.add %t2, %b : tensor<2x2xf32>\n"
      "      %t3 = stablehlo.transpose %d2, dims = [1, 0] : (tensor<2x2xf32>) -> "
      "tensor<2x2xf32>\n"
      "      %d3 = stablehlo.add %t3, %b : tensor<2x2xf32>\n"
      "      stablehlo.return %i2, %d3 : tensor<i64>, tensor<2x2xf32>\n"
      "    }\n"
      "  return %r#1 : tensor<2x2xf32>\n"
      "}\n";
  const std::string plan = plan_text(compile_module(text, true));
  EXPECT_NE(plan.find("body: 2 steps"), std::string::npos) << plan;  // the counter and one fusion
  const std::vector<float> x = {1, -2, 3, 8}, b = {0.5F, 1, -10, 0.25F};
  const auto out = expect_unsunk_bits(text, {f32({2, 2}, x), f32({2, 2}, b)});
  std::vector<float> expected = x;
  for (int k = 0; k < 3; ++k) expected = chain_by_hand(expected, b);
  EXPECT_EQ(values<float>(out[0]), expected);
}

}  // namespace
}  // namespace ndbuf::program
