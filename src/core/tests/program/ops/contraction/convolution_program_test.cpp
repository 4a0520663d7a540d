// stablehlo.convolution in program text: the pretty form as JAX and the dialect print it, the
// generic form with both spellings of #stablehlo.conv<...>, and mistyped programs as compile
// errors with line:column.
#include <gtest/gtest.h>

#include "tests/program/kernel_tensors.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

std::string main_with(const std::string& op, const std::string& result = "tensor<1x4x4x1xf32>") {
  return "func.func @main(%arg0: tensor<1x4x4x1xf32>, %arg1: tensor<3x3x1x1xf32>) -> " + result +
         " {\n  %0 = " + op + "\n  return %0 : " + result + "\n}\n";
}

const char kTypes[] = " : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>";

std::string pretty(const std::string& window, const std::string& attrs,
                   const std::string& dims = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                   const std::string& result = "tensor<1x4x4x1xf32>") {
  return "stablehlo.convolution(%arg0, %arg1) dim_numbers = " + dims + ", window = {" + window +
         "} {" + attrs + "} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> " + result;
}

const char kNhwc[] = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]";

const char kGroups[] =
    "batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = "
    "[#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]";

// 1..16 in a 4 x 4 image, a 3 x 3 kernel of ones, SAME padding: each result is the sum of the
// element's 3 x 3 neighbourhood, worked out by hand.
const std::vector<float> kNeighbourhoodSums = {14, 24, 30, 22, 33, 54, 63, 45,
                                               57, 90, 99, 69, 46, 72, 78, 54};

std::vector<float> run_on_grid(const std::string& text) {
  std::vector<float> image(16);
  for (int k = 0; k < 16; ++k) image[k] = static_cast<float>(k + 1);
  const auto out =
      run(text, {f32({1, 4, 4, 1}, image), f32({3, 3, 1, 1}, std::vector<float>(9, 1))});
  return values<float>(out.at(0));
}

TEST(ProgramConvolutionText, PrettyFormAsJaxPrintsIt) {
  const std::string window =
      "stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], "
      "reverse = [false, false]";
  EXPECT_EQ(run_on_grid(main_with(pretty(window, kGroups))), kNeighbourhoodSums);
  // Any subset of the window entries, integers for reverse, the printer's line breaks.
  EXPECT_EQ(run_on_grid(main_with(pretty("pad = [[1, 1], [1, 1]], reverse = [0, 0]", kGroups))),
            kNeighbourhoodSums);
  EXPECT_EQ(run_on_grid(main_with("stablehlo.convolution(%arg0, %arg1)\n    dim_numbers = [b, 0, "
                                  "1, f]x[0, 1, i, o]->[b, 0, 1, f],\n    window = {\n      pad = "
                                  "[[1, 1], [1, 1]]\n    } {\n      " +
                                  std::string(kGroups) + "\n    }\n  " + kTypes)),
            kNeighbourhoodSums);
  // No window entries: VALID padding leaves the centre 2 x 2.
  const auto valid = run(
      main_with(pretty("", kGroups, kNhwc, "tensor<1x2x2x1xf32>"), "tensor<1x2x2x1xf32>"),
      {f32({1, 4, 4, 1}, std::vector<float>(16, 2)), f32({3, 3, 1, 1}, std::vector<float>(9, 1))});
  EXPECT_EQ(values<float>(valid.at(0)), (std::vector<float>{18, 18, 18, 18}));
}

TEST(ProgramConvolutionText, GenericFormWithBothDimensionNumberSpellings) {
  const std::string attrs =
      "window_strides = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, lhs_dilation = "
      "array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, "
      "false>, batch_group_count = 1 : i64, feature_group_count = 1 : i64";
  const std::string compact = "\"stablehlo.convolution\"(%arg0, %arg1) {" + attrs +
                              ", dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, "
                              "o]->[b, 0, 1, f]>}" +
                              kTypes;
  EXPECT_EQ(run_on_grid(main_with(compact)), kNeighbourhoodSums);
  const std::string raw =
      "\"stablehlo.convolution\"(%arg0, %arg1) {" + attrs +
      ", dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, "
      "input_feature_dimension = 3, input_spatial_dimensions = [1, 2], "
      "kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, "
      "kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, "
      "output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>}" +
      kTypes;
  EXPECT_EQ(run_on_grid(main_with(raw)), kNeighbourhoodSums);
  // padding as a dense list of pairs
  std::string listed = compact;
  listed.replace(listed.find("dense<1>"), 8, "dense<[[1, 1], [1, 1]]>");
  EXPECT_EQ(run_on_grid(main_with(listed)), kNeighbourhoodSums);
}

TEST(ProgramConvolutionText, MistypedProgramsAreCompileErrors) {
  const std::string same = "pad = [[1, 1], [1, 1]]";
  EXPECT_EQ(compile_error(main_with(pretty(same, kGroups, kNhwc, "tensor<1x4x4x2xf32>"),
                                    "tensor<1x4x4x2xf32>")),
            "2:8: 'stablehlo.convolution' result type tensor<1x4x4x2xf32> should be "
            "tensor<1x4x4x1xf32>");
  EXPECT_EQ(compile_error(main_with(pretty(same, "feature_group_count = 3 : i64"))),
            "2:8: 'stablehlo.convolution' convolution: the input feature size (1) is not a "
            "multiple of feature_group_count (3).");
  EXPECT_EQ(
      compile_error(main_with(pretty(same,
                                     "feature_group_count = 2 : i64, batch_group_count = 2 "
                                     ": i64"))),
      "2:8: 'stablehlo.convolution' convolution: feature_group_count (2) and batch_group_count "
      "(2) cannot both be greater than 1.");
  EXPECT_EQ(compile_error(main_with(pretty("stride = [0, 1]", ""))),
            "2:8: 'stablehlo.convolution' convolution: window_strides must be positive, not 0.");
  EXPECT_EQ(compile_error(main_with(pretty("stride = [1]", ""))),
            "2:8: 'stablehlo.convolution' convolution: window_strides lists 1 spatial "
            "dimensions, but the operands have 2.");
  std::string mixed = main_with(pretty(same, ""));
  mixed.replace(mixed.find("%arg1: tensor<3x3x1x1xf32>"), 26, "%arg1: tensor<3x3x1x1xf64>");
  mixed.replace(mixed.find("tensor<3x3x1x1xf32>) ->"), 19, "tensor<3x3x1x1xf64>");
  EXPECT_EQ(compile_error(mixed),
            "2:8: 'stablehlo.convolution' operands must have one element type, not "
            "tensor<1x4x4x1xf32> and tensor<3x3x1x1xf64>");
}

TEST(ProgramConvolutionText, MalformedDimensionNumbersAndWindows) {
  EXPECT_EQ(compile_error(main_with(pretty("", "", "[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]"))),
            "2:65: spatial dimension 0 appears twice");
  EXPECT_EQ(compile_error(main_with(pretty("", "", "[b, 0, 1]x[0, 1, i, o]->[b, 0, 1, f]"))),
            "2:66: the dimension numbers need both 'b' and 'f'");
  EXPECT_EQ(compile_error(main_with(pretty("", "", "[b, 0, 1, o]x[0, 1, i, o]->[b, 0, 1, f]"))),
            "2:68: expected a spatial dimension number, 'b' or 'f' but found 'o'");
  EXPECT_EQ(compile_error(main_with(pretty("strides = [1, 1]", ""))),
            "2:109: unexpected 'strides' in the convolution's window");
  EXPECT_EQ(compile_error(main_with(pretty("pad = [[1, 1, 1], [1, 1]]", ""))),
            "2:116: expected a padding pair [low, high]");
  EXPECT_EQ(compile_error(main_with(pretty("", "", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 2, f]"))),
            "2:96: spatial dimension 1 is missing");
}

}  // namespace
}  // namespace ndbuf::program
