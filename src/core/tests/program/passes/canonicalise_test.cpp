// Canonicalisation: which ops are forwarded, shortened, merged and removed, what is never
// touched, and that every canonicalised run gives the plain run's bits (and hand-computed
// values).
#include "program/passes/canonicalise.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "program/text/parser.hpp"
#include "program/verify/verifier.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

std::vector<Tensor> run(const std::string& text, const std::vector<Tensor>& inputs,
                        bool canonicalise) {
  CompileOptions options;
  options.canonicalise = canonicalise;
  return execute(*compile(text, Device{}, options), inputs);
}

// Runs `text` canonicalised and plain; expects the same dtypes, shapes and bytes and returns
// the canonicalised results.
std::vector<Tensor> expect_plain_bits(const std::string& text, const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> optimised = run(text, inputs, true);
  testing::expect_same_results(optimised, run(text, inputs, false), "canonicalised and plain runs");
  return optimised;
}

struct Canonicalised {
  Module module;
  CanonicaliseCounts counts;
};

Canonicalised canonicalised(const std::string& text) {
  Canonicalised out{parse_program(text), {}};
  verify_module(out.module, true);
  out.counts = canonicalise(out.module);
  verify_module(out.module, true);  // still a valid module
  return out;
}

// The op names of @main's body after canonicalisation, the terminator included.
std::vector<std::string> ops_left(const std::string& text) {
  const Canonicalised c = canonicalised(text);
  std::vector<std::string> names;
  for (const Op& op : c.module.find("main")->body.ops) names.push_back(op.name);
  return names;
}

const Tensor k2x3 = f32({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(Canonicalise, IdentitiesForwardTheirOperand) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
      "  %a = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  %b = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  %c = stablehlo.transpose %b, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  %d = stablehlo.broadcast_in_dim %c, dims = [0, 1] : (tensor<2x3xf32>) -> "
      "tensor<2x3xf32>\n"
      "  %e = stablehlo.negate %d : tensor<2x3xf32>\n"
      "  return %e : tensor<2x3xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  EXPECT_EQ(c.counts.forwarded, 4);
  EXPECT_EQ(c.counts.removed, 4);
  EXPECT_EQ(ops_left(text), (std::vector<std::string>{"stablehlo.negate", "return"}));
  const auto out = expect_plain_bits(text, {k2x3});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{-1, -2, -3, -4, -5, -6}));
}

TEST(Canonicalise, ThePlanTextSaysWhatWasRewritten) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
      "  %a = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
      "  %b = stablehlo.exponential %a : tensor<2x3xf32>\n"
      "  %c = stablehlo.exponential %x : tensor<2x3xf32>\n"
      "  %d = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  %e = stablehlo.transpose %d, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>\n"
      "  %f = stablehlo.add %e, %c : tensor<2x3xf32>\n"
      "  return %f : tensor<2x3xf32>\n"
      "}\n";
  EXPECT_EQ(plan_text(compile_module(text, true)),
            "@main: 1 step (every result dense)\n"
            "  canonicalised: 2 ops forwarded, 1 op merged, 1 op read through a chain, 4 ops "
            "removed\n"
            "  1. fusion of 2 ops -> tensor<2x3xf32>, 24 B [lines 3-7; column-major when its "
            "operands are]\n"
            "       exponential, add\n");
  CompileOptions plain;
  plain.canonicalise = false;
  EXPECT_EQ(plan_text(compile_module(text, true, plain)).find("canonicalised"), std::string::npos);
  const auto out = expect_plain_bits(text, {k2x3});
  EXPECT_FLOAT_EQ(values<float>(out[0])[5], 2 * std::exp(6.0f));
}

TEST(Canonicalise, ConvertsToOtherTypesStay) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {\n"
      "  %a = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf64>\n"
      "  return %a : tensor<2x3xf64>\n"
      "}\n";
  EXPECT_EQ(ops_left(text), (std::vector<std::string>{"stablehlo.convert", "return"}));
}

TEST(Canonicalise, TransposeOfTransposeIsOneTranspose) {
  // x is 2x3x4; the first transpose gives 3x4x2 (dims [1, 2, 0]), the second 2x4x3 ([2, 1, 0]
  // of that): element (i, k, j) of the result is x[i, j, k], one transpose by [0, 2, 1].
  const std::string text =
      "func.func @main(%x: tensor<2x3x4xf32>) -> tensor<2x4x3xf32> {\n"
      "  %a = stablehlo.transpose %x, dims = [1, 2, 0] : (tensor<2x3x4xf32>) -> "
      "tensor<3x4x2xf32>\n"
      "  %b = stablehlo.transpose %a, dims = [2, 1, 0] : (tensor<3x4x2xf32>) -> "
      "tensor<2x4x3xf32>\n"
      "  return %b : tensor<2x4x3xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  ASSERT_EQ(c.module.find("main")->body.ops.size(), 2u);
  const Op& only = c.module.find("main")->body.ops[0];
  EXPECT_EQ(only.operands[0], c.module.find("main")->body.args[0]);
  EXPECT_EQ(find_attr(only.attrs, "permutation")->ints, (std::vector<int64_t>{0, 2, 1}));
  std::vector<float> x(24);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k);
  const auto out = expect_plain_bits(text, {f32({2, 3, 4}, x)});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < 3; ++j) expected.push_back(static_cast<float>(i * 12 + j * 4 + k));
    }
  }
  EXPECT_EQ(values<float>(out[0]), expected);
}

TEST(Canonicalise, TransposeBackIsForwarded) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
      "  %a = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  %b = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>\n"
      "  %c = stablehlo.abs %b : tensor<2x3xf32>\n"
      "  return %c : tensor<2x3xf32>\n"
      "}\n";
  EXPECT_EQ(ops_left(text), (std::vector<std::string>{"stablehlo.abs", "return"}));
  const auto out = expect_plain_bits(text, {k2x3});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Canonicalise, ReshapeChainsReadTheFirstOperand) {
  const std::string text =
      "func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>) {\n"
      "  %a = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>\n"
      "  %b = stablehlo.reshape %a : (tensor<6xf32>) -> tensor<3x2xf32>\n"
      "  return %b, %a : tensor<3x2xf32>, tensor<6xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  const Region& body = c.module.find("main")->body;
  ASSERT_EQ(body.ops.size(), 3u);  // %a is still read by the return
  EXPECT_EQ(body.ops[1].operands[0], body.args[0]);
  EXPECT_EQ(body.ops[1].operand_types[0], Type::tensor(DType::kF32, {2, 3}));
  const auto out = expect_plain_bits(text, {k2x3});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
}

TEST(Canonicalise, BroadcastOfBroadcastComposesItsDims) {
  // v (3) -> 2x3 along dim 1 -> 4x2x3 along dims [1, 2]: one broadcast of v along dim 2.
  const std::string text =
      "func.func @main(%v: tensor<3xf32>) -> tensor<4x2x3xf32> {\n"
      "  %a = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>\n"
      "  %b = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xf32>) -> "
      "tensor<4x2x3xf32>\n"
      "  return %b : tensor<4x2x3xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  const Region& body = c.module.find("main")->body;
  ASSERT_EQ(body.ops.size(), 2u);
  EXPECT_EQ(find_attr(body.ops[0].attrs, "broadcast_dimensions")->ints, (std::vector<int64_t>{2}));
  const auto out = expect_plain_bits(text, {f32({3}, {7, 8, 9})});
  std::vector<float> expected;
  for (int k = 0; k < 8; ++k) expected.insert(expected.end(), {7, 8, 9});
  EXPECT_EQ(values<float>(out[0]), expected);
}

TEST(Canonicalise, EqualPureOpsAreMergedOthersAreNot) {
  const std::string text =
      "func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {\n"
      "  %c1 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
      "  %c2 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
      "  %c3 = stablehlo.constant dense<[1.0, 2.0, 4.0]> : tensor<3xf32>\n"
      "  %a = stablehlo.add %x, %c1 : tensor<3xf32>\n"
      "  %b = stablehlo.add %x, %c2 : tensor<3xf32>\n"
      "  %s = stablehlo.add %c1, %x : tensor<3xf32>\n"
      "  %d = stablehlo.add %x, %c3 : tensor<3xf32>\n"
      "  %m1 = stablehlo.multiply %a, %b : tensor<3xf32>\n"
      "  %m2 = stablehlo.multiply %m1, %s : tensor<3xf32>\n"
      "  %m3 = stablehlo.multiply %m2, %d : tensor<3xf32>\n"
      "  return %m3 : tensor<3xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  // %c2 merges into %c1, then %b into %a; operands in the other order and other constants
  // are other computations.
  EXPECT_EQ(c.counts.merged, 2);
  EXPECT_EQ(ops_left(text),
            (std::vector<std::string>{"stablehlo.constant", "stablehlo.constant", "stablehlo.add",
                                      "stablehlo.add", "stablehlo.add", "stablehlo.multiply",
                                      "stablehlo.multiply", "stablehlo.multiply", "return"}));
  const auto out = expect_plain_bits(text, {f32({3}, {1, 0, -1}), f32({3}, {0, 0, 0})});
  // (x + c1)^2 * (c1 + x) * (x + c3) = (2, 2, 2)^3 * (2, 2, 3)
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{16, 16, 24}));
}

TEST(Canonicalise, RegionsReuseEnclosingValuesButNotSiblingOnes) {
  const std::string text =
      "func.func @main(%p: tensor<i1>, %x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {\n"
      "  %e = stablehlo.exponential %x : tensor<f32>\n"
      "  %r = \"stablehlo.if\"(%p) ({\n"
      "    %t = stablehlo.exponential %x : tensor<f32>\n"
      "    %u = stablehlo.sine %x : tensor<f32>\n"
      "    %s = stablehlo.add %t, %u : tensor<f32>\n"
      "    stablehlo.return %s : tensor<f32>\n"
      "  }, {\n"
      "    %u = stablehlo.sine %x : tensor<f32>\n"
      "    stablehlo.return %u : tensor<f32>\n"
      "  }) : (tensor<i1>) -> tensor<f32>\n"
      "  return %e, %r : tensor<f32>, tensor<f32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  EXPECT_EQ(c.counts.merged, 1);  // the exponential in the true branch; both sines stay
  const Op& if_op = c.module.find("main")->body.ops[1];
  ASSERT_EQ(if_op.regions[0].ops.size(), 3u);  // sine, add, return
  EXPECT_EQ(if_op.regions[0].ops[1].operands[0], c.module.find("main")->body.ops[0].results[0]);
  EXPECT_EQ(if_op.regions[1].ops.size(), 2u);
  for (bool p : {true, false}) {
    const Tensor pred = testing::pred({}, {static_cast<uint8_t>(p)});
    const auto out = expect_plain_bits(text, {pred, f32({}, {0.5f})});
    const float expected = p ? std::exp(0.5f) + std::sin(0.5f) : std::sin(0.5f);
    EXPECT_NEAR(values<float>(out[1])[0], expected, 1e-6f);
  }
}

TEST(Canonicalise, DeadPureOpsGoEffectsStay) {
  const std::string text =
      "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %a = stablehlo.exponential %x : tensor<4xf32>\n"
      "  %b = stablehlo.add %a, %a : tensor<4xf32>\n"
      "  %c = stablehlo.optimization_barrier %x : tensor<4xf32>\n"
      "  %y = stablehlo.negate %x : tensor<4xf32>\n"
      "  check.expect_eq_const %y, dense<[-1.0, -2.0, -3.0, -4.0]> : tensor<4xf32>\n"
      "  return %x : tensor<4xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  EXPECT_EQ(c.counts.removed, 2);  // %b, then %a with it
  EXPECT_EQ(ops_left(text),
            (std::vector<std::string>{"stablehlo.optimization_barrier", "stablehlo.negate",
                                      "check.expect_eq_const", "return"}));
  const auto out = expect_plain_bits(text, {f32({4}, {1, 2, 3, 4})});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2, 3, 4}));
}

// A max-pooling program returning only its forward pass: the unread select_and_scatter, a
// reduce and a sort go; a conditional whose branch checks a value and a loop stay unread.
TEST(Canonicalise, DeadReductionsAndSortsGoLoopsAndChecksStay) {
  const std::string text =
      "func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n"
      "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %y = \"stablehlo.reduce_window\"(%x, %ninf) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %m = stablehlo.maximum %a, %b : tensor<f32>\n"
      "    \"stablehlo.return\"(%m) : (tensor<f32>) -> ()\n"
      "  }) {window_dimensions = array<i64: 2>, padding = dense<[[0, 1]]> : tensor<1x2xi64>}"
      " : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>\n"
      "  %dx = \"stablehlo.select_and_scatter\"(%x, %x, %zero) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n"
      "  }, {\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %s = stablehlo.add %a, %b : tensor<f32>\n"
      "    \"stablehlo.return\"(%s) : (tensor<f32>) -> ()\n"
      "  }) {window_dimensions = array<i64: 2>, padding = dense<[[0, 1]]> : tensor<1x2xi64>,"
      " window_strides = array<i64: 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>)"
      " -> tensor<4xf32>\n"
      "  %total = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]"
      " : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
      "  %sorted = \"stablehlo.sort\"(%x) ({\n"
      "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n"
      "  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %pure = \"stablehlo.if\"(%p) ({\n"
      "    \"stablehlo.return\"(%x) : (tensor<4xf32>) -> ()\n"
      "  }, {\n"
      "    %n = stablehlo.negate %x : tensor<4xf32>\n"
      "    \"stablehlo.return\"(%n) : (tensor<4xf32>) -> ()\n"
      "  }) : (tensor<i1>) -> tensor<4xf32>\n"
      "  %checked = \"stablehlo.if\"(%p) ({\n"
      "    check.expect_eq_const %x, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
      "    \"stablehlo.return\"(%x) : (tensor<4xf32>) -> ()\n"
      "  }, {\n"
      "    \"stablehlo.return\"(%x) : (tensor<4xf32>) -> ()\n"
      "  }) : (tensor<i1>) -> tensor<4xf32>\n"
      "  %loop = stablehlo.while(%v = %x) : tensor<4xf32>\n"
      "    cond {\n"
      "      %f = stablehlo.constant dense<false> : tensor<i1>\n"
      "      stablehlo.return %f : tensor<i1>\n"
      "    } do {\n"
      "      stablehlo.return %v : tensor<4xf32>\n"
      "    }\n"
      "  return %y : tensor<4xf32>\n"
      "}\n";
  EXPECT_EQ(ops_left(text),
            (std::vector<std::string>{"stablehlo.constant", "stablehlo.reduce_window",
                                      "stablehlo.if", "stablehlo.while", "return"}));
  const Tensor p = testing::pred({}, {1});
  const auto out = expect_plain_bits(text, {f32({4}, {1, 2, 3, 4}), p});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 3, 4, 4}));
}

// An op the table does not know (the verifier names it later) makes its enclosing op stay:
// it has no row to say whether it is pure, and reading one went past the table (a fuzzer found
// it under AddressSanitizer).
TEST(Canonicalise, AnUnknownOpInADeadBodyKeepsTheBody) {
  const std::string text =
      "func.func @main(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {\n"
      "  %dead = \"stablehlo.if\"(%p) ({\n"
      "    %u = \"stablehlo.in\"(%p) ({\n"
      "      \"stablehlo.return\"(%x) : (tensor<4xf32>) -> ()\n"
      "    }) : (tensor<i1>) -> tensor<4xf32>\n"
      "    \"stablehlo.return\"(%u) : (tensor<4xf32>) -> ()\n"
      "  }, {\n"
      "    \"stablehlo.return\"(%x) : (tensor<4xf32>) -> ()\n"
      "  }) : (tensor<i1>) -> tensor<4xf32>\n"
      "  return %x : tensor<4xf32>\n"
      "}\n";
  EXPECT_EQ(ops_left(text), (std::vector<std::string>{"stablehlo.if", "return"}));
}

TEST(Canonicalise, LoopsKeepTheirBodiesAndState) {
  const std::string text =
      "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
      "  %zero = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %three = stablehlo.constant dense<3> : tensor<i64>\n"
      "  %unused = stablehlo.multiply %x, %x : tensor<3xf32>\n"
      "  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i64>, tensor<3xf32>\n"
      "    cond {\n"
      "      %lt = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "      stablehlo.return %lt : tensor<i1>\n"
      "    } do {\n"
      "      %n = stablehlo.add %i, %one : tensor<i64>\n"
      "      %w = stablehlo.add %v, %v : tensor<3xf32>\n"
      "      %dead = stablehlo.add %v, %v : tensor<3xf32>\n"
      "      stablehlo.return %n, %w : tensor<i64>, tensor<3xf32>\n"
      "    }\n"
      "  return %r#1 : tensor<3xf32>\n"
      "}\n";
  const Canonicalised c = canonicalised(text);
  EXPECT_EQ(c.counts.merged, 1);   // %dead merges into %w (then is gone with its uses)
  EXPECT_EQ(c.counts.removed, 2);  // %dead and %unused
  const auto out = expect_plain_bits(text, {f32({3}, {1, -2, 0.5f})});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{8, -16, 4}));
}

TEST(Canonicalise, ArgumentsReturnedThroughIdentitiesKeepTheirBits) {
  // A NaN with a payload and a signalling NaN pass through the forwarded convert unchanged.
  const std::string text =
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %a = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %a : tensor<2xf32>\n"
      "}\n";
  const uint32_t bits[2] = {0x7fc01234u, 0x7f800001u};
  std::vector<float> x(2);
  std::memcpy(x.data(), bits, sizeof bits);
  const auto out = run(text, {f32({2}, x)}, true);
  uint32_t got[2];
  std::memcpy(got, out[0].data(), sizeof got);
  EXPECT_EQ(got[0], bits[0]);
  EXPECT_EQ(got[1], bits[1]);
}

}  // namespace
}  // namespace ndbuf::program
