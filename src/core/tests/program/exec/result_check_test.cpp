// The interpreter's defence in depth (exec/result_check.hpp): results that differ from their
// op's declared types are internal errors naming both.
#include "program/exec/result_check.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

TEST(ResultCheck, ResultsThatDifferFromTheirDeclaredTypesAreInternalErrors) {
  Op op;
  op.name = "stablehlo.dot_general";
  op.loc = {3, 8};
  op.results = {0};
  op.result_types = {Type::tensor(DType::kF32, {5, 7})};
  const auto message = [&](const Values& results) -> std::string {
    try {
      check_op_results(op, results);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::vector<float> eight(8, 1.0f);
  EXPECT_EQ(message({Value(testing::f32({5, 7}, std::vector<float>(35, 0.0f)))}), "");
  EXPECT_EQ(message({Value(testing::f32({2, 4}, eight))}),
            "3:8: internal error: 'stablehlo.dot_general' gave tensor<2x4xf32> for result 1, "
            "which is declared tensor<5x7xf32>; this is a bug in the runtime, please report it");
  EXPECT_EQ(message({Value(testing::f64({5, 7}, std::vector<double>(35, 0.0)))}),
            "3:8: internal error: 'stablehlo.dot_general' gave tensor<5x7xf64> for result 1, "
            "which is declared tensor<5x7xf32>; this is a bug in the runtime, please report it");
  EXPECT_EQ(message({}),
            "3:8: internal error: 'stablehlo.dot_general' gave 0 results where it declares 1; "
            "this is a bug in the runtime, please report it");
  // Tuples element by element.
  op.result_types = {Type{Type::Kind::kTuple, DType::kF32, {}, {Type::tensor(DType::kF32, {8})}}};
  Value tuple;
  tuple.tuple = std::make_shared<const Values>(Values{Value(testing::f32({8}, eight))});
  EXPECT_EQ(message({tuple}), "");
  tuple.tuple = std::make_shared<const Values>(Values{Value(testing::f32({2, 4}, eight))});
  EXPECT_EQ(
      message({tuple}),
      "3:8: internal error: 'stablehlo.dot_general' gave a 1-element tuple for result 1, which "
      "is declared tuple<tensor<8xf32>>; this is a bug in the runtime, please report it");
}

}  // namespace
}  // namespace ndbuf::program
