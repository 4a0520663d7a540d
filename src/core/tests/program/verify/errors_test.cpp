// Compile and execute errors: every compile error names line:column and the token or op.
#include <gtest/gtest.h>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;

std::string main_with(const std::string& body, const std::string& args = "") {
  return "func.func @main(" + args + ") {\n" + body + "\n  return\n}\n";
}

TEST(ProgramErrors, LexicalAndSyntaxErrorsNameTheToken) {
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.constant dense<1> : tensor<f32> ;")),
            "2:50: unexpected character ';'");
  EXPECT_EQ(compile_error("func.func @main() {\n  %0 = \"stablehlo.constant() {}\n}"),
            "2:8: unterminated string");
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.add %a %b : tensor<f32>",
                                    "%a: tensor<f32>, %b: tensor<f32>")),
            "2:25: expected ':' before the type of 'stablehlo.add' but found '%b'");
  EXPECT_EQ(compile_error("module {\n  func.func @main() {\n    return\n  }\n"),
            "5:1: missing '}' to close the module");
  EXPECT_EQ(compile_error("func.func @main() {\n  return\n}\nfoo"),
            "4:1: expected 'func.func' at the top level but found 'foo'");
}

TEST(ProgramErrors, UnsupportedTypesAndOpsAreNamed) {
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.constant dense<1> : tensor<2xi4>")),
            "2:47: element type 'i4' is not supported by this runtime (supported: i1, i8, i16, "
            "i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>, "
            "f8E4M3FN, f8E5M2; in constants and convert also f8E4M3, f8E4M3FNUZ, f8E4M3B11FNUZ, "
            "f8E5M2FNUZ, f8E3M4, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN)");
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.constant dense<1.0> : tensor<f8E4M3FN>")),
            "");
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.create_token : !stablehlo.token")),
            "2:8: op 'stablehlo.create_token' is not supported by this runtime");
  // The generic form of an op the runtime does not run (cholesky and replica_id, named here
  // before, now run).
  EXPECT_EQ(compile_error(main_with("  %0 = \"stablehlo.infeed\"() : () -> tensor<ui32>")),
            "2:8: op 'stablehlo.infeed' is not supported by this runtime");
  EXPECT_EQ(compile_error(main_with("  %0 = stablehlo.constant dense<1> : tensor<?xf32>")),
            "2:45: dynamic shapes ('?') are not supported by this runtime");
}

TEST(ProgramErrors, VerifierErrors) {
  EXPECT_EQ(compile_error("func.func @f() {\n  return\n}\n"),
            "1:11: the program has no @main function");
  EXPECT_EQ(
      compile_error(main_with("  %0 = stablehlo.add %a, %zz : tensor<f32>", "%a: tensor<f32>")),
      "2:26: use of undefined value '%zz'");
  EXPECT_EQ(
      compile_error(main_with("  %0 = stablehlo.add %a, %a : tensor<2xf32>", "%a: tensor<f32>")),
      "2:8: operand 1 of 'stablehlo.add' has type tensor<f32> but the op's type says "
      "tensor<2xf32>");
  EXPECT_EQ(
      compile_error(main_with(
          "  %0 = stablehlo.negate %a : tensor<f32>\n  %0 = stablehlo.negate %a : tensor<f32>",
          "%a: tensor<f32>")),
      "3:3: redefinition of value '%0'");
  EXPECT_EQ(
      compile_error(
          "func.func @main(%a: tensor<f32>) -> tensor<i32> {\n  return %a : tensor<f32>\n}\n"),
      "2:3: @main returns (tensor<f32>) but is declared to return (tensor<i32>)");
  EXPECT_EQ(
      compile_error(main_with(
          "  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>",
          "%a: tensor<2x2xf32>")),
      "2:8: 'stablehlo.transpose' permutation entry 0 appears twice");
  EXPECT_EQ(
      compile_error(main_with("  %0 = stablehlo.reshape %a : (tensor<2x2xf32>) -> tensor<3xf32>",
                              "%a: tensor<2x2xf32>")),
      "2:8: 'stablehlo.reshape' cannot reshape tensor<2x2xf32> to tensor<3xf32>: the sizes differ");
  EXPECT_EQ(
      compile_error(main_with("  %0 = stablehlo.slice %a [0:3] : (tensor<2xf32>) -> tensor<3xf32>",
                              "%a: tensor<2xf32>")),
      "2:8: 'stablehlo.slice' slice [0:3:1] is invalid for axis 0 of size 2");
  EXPECT_EQ(compile_error(main_with("  %0 = \"stablehlo.iota\"() : () -> tensor<3xf32>")),
            "2:8: 'stablehlo.iota' needs the attribute 'iota_dimension'");
  EXPECT_EQ(compile_error(main_with("  %0 = call @g() : () -> tensor<f32>")),
            "2:8: 'func.call' calls '@g', which is not defined");
}

TEST(ProgramErrors, FailedChecksNameTheIndexAndBothValues) {
  EXPECT_EQ(testing::run_error(
                main_with("  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>\n"
                          "  check.expect_eq_const %0, dense<[[1, 2], [3, 5]]> : tensor<2x2xi32>")),
            "check.expect_eq_const failed at index (1, 1): got 4, expected 5");
  EXPECT_EQ(testing::run_error(
                main_with("  %0 = stablehlo.constant dense<1.0> : tensor<f64>\n"
                          "  check.expect_almost_eq_const %0, dense<1.001> : tensor<f64>")),
            "check.expect_almost_eq_const failed at index (): got 1, expected 1.001");
  EXPECT_EQ(testing::run_error(main_with("  %0 = stablehlo.constant dense<1.0> : tensor<f64>\n"
                                         "  check.expect_almost_eq_const %0, dense<1.001> : "
                                         "tensor<f64> {tolerance = 0.01 : f64}")),
            "");
}

TEST(ProgramErrors, ExecuteChecksItsInputs) {
  auto e = compile(
      "func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  return %a : "
      "tensor<2x3xf32>\n}\n");
  auto message = [&](const std::vector<Tensor>& inputs) {
    try {
      execute(*e, inputs);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_EQ(message({}), "@main takes 1 arguments but 0 were given");
  EXPECT_EQ(message({testing::f64({2, 3}, {1, 2, 3, 4, 5, 6})}),
            "argument 1 of @main must have element type f32, not f64");
  EXPECT_EQ(message({testing::f32({3, 2}, {1, 2, 3, 4, 5, 6})}),
            "argument 1 of @main must have shape (2, 3), not shape (3, 2)");
  try {
    compile("func.func @main() {\n  return\n}\n", Device{Platform::kCuda, 0});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "programs run only on CPU devices in this version, not on cuda:0");
  }
}

}  // namespace
}  // namespace ndbuf::program
