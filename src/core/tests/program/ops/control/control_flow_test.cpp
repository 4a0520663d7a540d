// Executor: while, if, case, func.call, map, tuples; long loops and deep nesting.
#include <gtest/gtest.h>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::run;
using testing::values;

TEST(ProgramControlFlow, WhileSumsOneToTen) {
  // sum = 0; for i in 1..10: sum += i  ->  55 (by hand).
  const auto out =
      run("func.func @main() -> (tensor<i64>, tensor<i64>) {\n"
          "  %i0 = stablehlo.constant dense<1> : tensor<i64>\n"
          "  %s0 = stablehlo.constant dense<0> : tensor<i64>\n"
          "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
          "  %ten = stablehlo.constant dense<10> : tensor<i64>\n"
          "  %i, %s = stablehlo.while(%a = %i0, %b = %s0) : tensor<i64>, tensor<i64>\n"
          "  cond {\n"
          "    %c = stablehlo.compare LE, %a, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
          "    stablehlo.return %c : tensor<i1>\n"
          "  } do {\n"
          "    %n = stablehlo.add %b, %a : tensor<i64>\n"
          "    %j = stablehlo.add %a, %one : tensor<i64>\n"
          "    stablehlo.return %j, %n : tensor<i64>, tensor<i64>\n"
          "  }\n"
          "  return %i, %s : tensor<i64>, tensor<i64>\n}\n");
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{11}));
  EXPECT_EQ(values<int64_t>(out[1]), (std::vector<int64_t>{55}));
}

// A scan writes row i of its carried output each step (updated in place once the loop holds
// it alone); the old output is also read after the update in the second loop, so there the
// update must not land in the memory that read still sees.
TEST(ProgramControlFlow, ScanUpdatesItsCarriedOutputRowByRow) {
  const std::string loop_head =
      "  %i0 = stablehlo.constant dense<0> : tensor<i32>\n"
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %buf0 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<3x2xf32>\n"
      "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
      "  %three = stablehlo.constant dense<3> : tensor<i32>\n"
      "  %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
      "  %i, %buf, %acc = stablehlo.while(%a = %i0, %b = %buf0, %s = %buf0) : tensor<i32>, "
      "tensor<3x2xf32>, tensor<3x2xf32>\n"
      "  cond {\n"
      "    %c = stablehlo.compare LT, %a, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n"
      "  } do {\n"
      "    %j = stablehlo.add %a, %one : tensor<i32>\n"
      "    %f = stablehlo.convert %j : (tensor<i32>) -> tensor<f32>\n"
      "    %row = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<1x2xf32>\n"
      "    %u = stablehlo.dynamic_update_slice %b, %row, %a, %c0 : (tensor<3x2xf32>, "
      "tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<3x2xf32>\n";
  const std::string tail =
      "  }\n"
      "  return %buf, %acc : tensor<3x2xf32>, tensor<3x2xf32>\n}\n";
  // Rows 1, 2, 3 after three steps (by hand); the accumulator stays zero.
  const auto plain = run("func.func @main() -> (tensor<3x2xf32>, tensor<3x2xf32>) {\n" + loop_head +
                         "    stablehlo.return %j, %u, %s : tensor<i32>, " +
                         "tensor<3x2xf32>, tensor<3x2xf32>\n" + tail);
  EXPECT_EQ(values<float>(plain[0]), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(values<float>(plain[1]), (std::vector<float>(6, 0.0f)));
  // acc += the output as it was before this step's update: 0, then row 1, then rows 1 and 2,
  // so acc = [1+1, 1+1; 2, 2; 0, 0] after three steps (by hand).
  const auto reread = run("func.func @main() -> (tensor<3x2xf32>, tensor<3x2xf32>) {\n" +
                          loop_head + "    %t = stablehlo.add %s, %b : tensor<3x2xf32>\n" +
                          "    stablehlo.return %j, %u, %t : tensor<i32>, tensor<3x2xf32>, " +
                          "tensor<3x2xf32>\n" + tail);
  EXPECT_EQ(values<float>(reread[0]), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(values<float>(reread[1]), (std::vector<float>{2, 2, 2, 2, 0, 0}));
}

TEST(ProgramControlFlow, LongWhileLoopRuns) {
  const auto out =
      run("func.func @main(%limit: tensor<i32>) -> tensor<i32> {\n"
          "  %z = stablehlo.constant dense<0> : tensor<i32>\n"
          "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
          "  %r = \"stablehlo.while\"(%z) ({\n"
          "  ^bb0(%a: tensor<i32>):\n"
          "    %c = stablehlo.compare LT, %a, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
          "    stablehlo.return %c : tensor<i1>\n"
          "  }, {\n"
          "  ^bb0(%a: tensor<i32>):\n"
          "    %n = stablehlo.add %a, %one : tensor<i32>\n"
          "    stablehlo.return %n : tensor<i32>\n"
          "  }) : (tensor<i32>) -> tensor<i32>\n"
          "  return %r : tensor<i32>\n}\n",
          {testing::i32({}, {50000})});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{50000}));
}

const char* kIfProgram =
    "func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  %r = \"stablehlo.if\"(%p) ({\n"
    "    %n = stablehlo.negate %x : tensor<2xf32>\n"
    "    stablehlo.return %n : tensor<2xf32>\n"
    "  }, {\n"
    "    stablehlo.return %x : tensor<2xf32>\n"
    "  }) : (tensor<i1>) -> tensor<2xf32>\n"
    "  return %r : tensor<2xf32>\n}\n";

TEST(ProgramControlFlow, IfTakesTheBranchOfThePredicate) {
  const Tensor x = testing::f32({2}, {1.5f, -2});
  EXPECT_EQ(values<float>(run(kIfProgram, {testing::pred({}, {1}), x})[0]),
            (std::vector<float>{-1.5f, 2}));
  EXPECT_EQ(values<float>(run(kIfProgram, {testing::pred({}, {0}), x})[0]),
            (std::vector<float>{1.5f, -2}));
}

TEST(ProgramControlFlow, CaseOutOfRangeRunsTheLastBranch) {
  const char* text =
      "func.func @main(%i: tensor<i32>) -> tensor<i64> {\n"
      "  %r = \"stablehlo.case\"(%i) ({\n"
      "    %a = stablehlo.constant dense<10> : tensor<i64>\n"
      "    stablehlo.return %a : tensor<i64>\n"
      "  }, {\n"
      "    %b = stablehlo.constant dense<20> : tensor<i64>\n"
      "    stablehlo.return %b : tensor<i64>\n"
      "  }, {\n"
      "    %c = stablehlo.constant dense<30> : tensor<i64>\n"
      "    stablehlo.return %c : tensor<i64>\n"
      "  }) : (tensor<i32>) -> tensor<i64>\n"
      "  return %r : tensor<i64>\n}\n";
  const std::vector<std::pair<int32_t, int64_t>> cases = {
      {0, 10}, {1, 20}, {2, 30}, {3, 30}, {-1, 30}};
  for (const auto& [index, want] : cases) {
    EXPECT_EQ(values<int64_t>(run(text, {testing::i32({}, {index})})[0]),
              (std::vector<int64_t>{want}))
        << index;
  }
}

TEST(ProgramControlFlow, CallsBetweenFunctions) {
  // square(x) + square(x + 1) with x = 3: 9 + 16 = 25.
  const auto out =
      run("func.func private @square(%v: tensor<i32>) -> tensor<i32> {\n"
          "  %0 = stablehlo.multiply %v, %v : tensor<i32>\n"
          "  return %0 : tensor<i32>\n}\n"
          "func.func private @twice(%v: tensor<i32>) -> tensor<i32> {\n"
          "  %one = stablehlo.constant dense<1> : tensor<i32>\n"
          "  %w = stablehlo.add %v, %one : tensor<i32>\n"
          "  %a = call @square(%v) : (tensor<i32>) -> tensor<i32>\n"
          "  %b = func.call @square(%w) : (tensor<i32>) -> tensor<i32>\n"
          "  %s = stablehlo.add %a, %b : tensor<i32>\n"
          "  return %s : tensor<i32>\n}\n"
          "func.func @main(%x: tensor<i32>) -> tensor<i32> {\n"
          "  %0 = \"func.call\"(%x) {callee = @twice} : (tensor<i32>) -> tensor<i32>\n"
          "  return %0 : tensor<i32>\n}\n",
          {testing::i32({}, {3})});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{25}));
}

TEST(ProgramControlFlow, RecursionIsAnErrorNotACrash) {
  EXPECT_EQ(testing::run_error("func.func @main() -> tensor<i32> {\n"
                               "  %0 = call @main() : () -> tensor<i32>\n"
                               "  return %0 : tensor<i32>\n}\n"),
            "calls nested more than 256 deep (at @main): is the program recursive?");
}

TEST(ProgramControlFlow, MapAppliesTheRegionPerElement) {
  // a * b + a, element-wise: [1*4+1, 2*5+2, 3*6+3] = [5, 12, 21].
  const auto out =
      run("func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {\n"
          "  %r = \"stablehlo.map\"(%a, %b) ({\n"
          "  ^bb0(%x: tensor<i32>, %y: tensor<i32>):\n"
          "    %m = stablehlo.multiply %x, %y : tensor<i32>\n"
          "    %s = stablehlo.add %m, %x : tensor<i32>\n"
          "    stablehlo.return %s : tensor<i32>\n"
          "  }) {dimensions = array<i64: 0>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>\n"
          "  return %r : tensor<3xi32>\n}\n",
          {testing::i32({3}, {1, 2, 3}), testing::i32({3}, {4, 5, 6})});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{5, 12, 21}));
}

TEST(ProgramControlFlow, TuplesCarryValues) {
  const auto out =
      run("func.func @main(%a: tensor<2xf32>, %b: tensor<i64>) -> (tensor<i64>, tensor<2xf32>) {\n"
          "  %inner = stablehlo.tuple %b : tuple<tensor<i64>>\n"
          "  %t = stablehlo.tuple %a, %inner : tuple<tensor<2xf32>, tuple<tensor<i64>>>\n"
          "  %x = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tuple<tensor<i64>>>) "
          "-> tensor<2xf32>\n"
          "  %u = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tuple<tensor<i64>>>) "
          "-> tuple<tensor<i64>>\n"
          "  %y = stablehlo.get_tuple_element %u[0] : (tuple<tensor<i64>>) -> tensor<i64>\n"
          "  return %y, %x : tensor<i64>, tensor<2xf32>\n}\n",
          {testing::f32({2}, {1, 2}), testing::i64({}, {-5})});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{-5}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1, 2}));
}

// `depth` ifs nested inside each other, the innermost returning %x + 1.
std::string nested_ifs(int depth) {
  std::string body =
      "%v = stablehlo.add %x, %one : tensor<i32>\nstablehlo.return %v : tensor<i32>\n";
  for (int k = 0; k < depth; ++k) {
    body = "%r" + std::to_string(k) + " = \"stablehlo.if\"(%p) ({\n" + body +
           "}, {\nstablehlo.return %x : tensor<i32>\n}) : (tensor<i1>) -> tensor<i32>\n"
           "stablehlo.return %r" +
           std::to_string(k) + " : tensor<i32>\n";
  }
  return "func.func @main(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {\n"
         "%one = stablehlo.constant dense<1> : tensor<i32>\n" +
         body.substr(0, body.rfind("stablehlo.return")) + "return %r" + std::to_string(depth - 1) +
         " : tensor<i32>\n}\n";
}

TEST(ProgramControlFlow, DeepNestingRunsAndTooDeepIsAClearError) {
  const auto out = run(nested_ifs(100), {testing::pred({}, {1}), testing::i32({}, {41})});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{42}));
  const std::string error = testing::compile_error(nested_ifs(300));
  EXPECT_NE(error.find("program is nested too deeply (more than 256 levels"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace ndbuf::program
