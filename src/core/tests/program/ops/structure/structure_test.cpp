// Executor: the structural ops over dtype families, 0-d and empty tensors, strided inputs.
#include "program/ops/structure/structure.hpp"

#include <gtest/gtest.h>

#include <complex>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::run;
using testing::values;

std::string unary_program(const std::string& in, const std::string& out, const std::string& body) {
  return "func.func @main(%x: " + in + ") -> " + out + " {\n  %0 = " + body +
         "\n  return %0 : " + out + "\n}\n";
}

TEST(ProgramStructure, IotaReshapeTranspose) {
  const auto out =
      run("func.func @main() -> (tensor<2x3xi32>, tensor<3x2xf32>) {\n"
          "  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
          "  %1 = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> tensor<6xf32>\n"
          "  %2 = stablehlo.reshape %1 : (tensor<6xf32>) -> tensor<2x3xf32>\n"
          "  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
          "  return %0, %3 : tensor<2x3xi32>, tensor<3x2xf32>\n}\n");
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(ProgramStructure, IotaAlongAMiddleAxisRepeatsItsPeriod) {
  // tensor<2x3x2xi64> along axis 1: element [a, b, c] is b.
  const auto out =
      run("func.func @main() -> tensor<2x3x2xi64> {\n"
          "  %0 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<2x3x2xi64>\n"
          "  return %0 : tensor<2x3x2xi64>\n}\n");
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2}));
}

TEST(ProgramStructure, BroadcastInDim) {
  const auto out = run(
      unary_program("tensor<2xi8>", "tensor<3x2xi8>",
                    "stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<2xi8>) -> tensor<3x2xi8>"),
      {testing::tensor_of<int8_t>(DType::kI8, {2}, {-1, 7})});
  EXPECT_EQ(values<int8_t>(out[0]), (std::vector<int8_t>{-1, 7, -1, 7, -1, 7}));
}

TEST(ProgramStructure, SliceWithStridesAndReverse) {
  const Tensor x = testing::tensor_of<uint16_t>(DType::kU16, {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  const auto sliced =
      run(unary_program("tensor<2x4xui16>", "tensor<2x2xui16>",
                        "stablehlo.slice %x [0:2, 1:4:2] : (tensor<2x4xui16>) -> tensor<2x2xui16>"),
          {x});
  EXPECT_EQ(values<uint16_t>(sliced[0]), (std::vector<uint16_t>{1, 3, 5, 7}));
  const auto reversed = run(unary_program("tensor<2x4xui16>", "tensor<2x4xui16>",
                                          "stablehlo.reverse %x, dims = [0, 1] : tensor<2x4xui16>"),
                            {x});
  EXPECT_EQ(values<uint16_t>(reversed[0]), (std::vector<uint16_t>{7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(ProgramStructure, DynamicSliceAndUpdateClampStartIndices) {
  // Start (5, -1) clamps to (1, 0) for a 2x2 window of a 3x3 operand.
  const char* text =
      "func.func @main(%x: tensor<3x3xi64>, %u: tensor<2x2xi64>, %i: tensor<i32>, %j: tensor<i32>) "
      "-> (tensor<2x2xi64>, tensor<3x3xi64>) {\n"
      "  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<3x3xi64>, tensor<i32>, "
      "tensor<i32>) -> tensor<2x2xi64>\n"
      "  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<3x3xi64>, tensor<2x2xi64>, "
      "tensor<i32>, tensor<i32>) -> tensor<3x3xi64>\n"
      "  return %0, %1 : tensor<2x2xi64>, tensor<3x3xi64>\n}\n";
  const auto out = run(text, {testing::i64({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                              testing::i64({2, 2}, {-1, -2, -3, -4}), testing::i32({}, {5}),
                              testing::i32({}, {-1})});
  EXPECT_EQ(values<int64_t>(out[0]), (std::vector<int64_t>{4, 5, 7, 8}));
  EXPECT_EQ(values<int64_t>(out[1]), (std::vector<int64_t>{1, 2, 3, -1, -2, 6, -3, -4, 9}));
}

TEST(ProgramStructure, ConcatenateComplex) {
  using C = std::complex<float>;
  const auto out =
      run("func.func @main(%a: tensor<1x2xcomplex<f32>>, %b: tensor<2x2xcomplex<f32>>) -> "
          "tensor<3x2xcomplex<f32>> {\n"
          "  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1x2xcomplex<f32>>, "
          "tensor<2x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>\n"
          "  return %0 : tensor<3x2xcomplex<f32>>\n}\n",
          {testing::tensor_of<C>(DType::kC64, {1, 2}, {C(1, 1), C(2, -2)}),
           testing::tensor_of<C>(DType::kC64, {2, 2}, {C(3, 0), C(4, 0), C(5, 0), C(6, 6)})});
  EXPECT_EQ(values<C>(out[0]),
            (std::vector<C>{C(1, 1), C(2, -2), C(3, 0), C(4, 0), C(5, 0), C(6, 6)}));
}

TEST(ProgramStructure, PadWithNegativeAndInteriorPadding) {
  // [1 2 3] with low = -1, interior = 1, high = 2, value 0: drop the first element of
  // [1 0 2 0 3 0 0] -> [0 2 0 3 0 0].
  const auto out =
      run("func.func @main(%x: tensor<3xf16>, %v: tensor<f16>) -> tensor<6xf16> {\n"
          "  %0 = stablehlo.pad %x, %v, low = [-1], high = [2], interior = [1] : (tensor<3xf16>, "
          "tensor<f16>) -> tensor<6xf16>\n"
          "  return %0 : tensor<6xf16>\n}\n",
          {testing::f16({3}, {1, 2, 3}), testing::f16({}, {0})});
  EXPECT_EQ(testing::half_values(out[0]), (std::vector<double>{0, 2, 0, 3, 0, 0}));
}

TEST(ProgramStructure, PadTwoDimensions) {
  // 2x2 [[1,2],[3,4]] with low (1, 0), high (0, 1), interior (0, 1), value 9:
  // rows [9 9 9 9], [1 9 2 9], [3 9 4 9].
  const auto out = run(
      "func.func @main(%x: tensor<2x2xi32>, %v: tensor<i32>) -> tensor<3x4xi32> {\n"
      "  %0 = \"stablehlo.pad\"(%x, %v) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = "
      "array<i64: 0, 1>, "
      "interior_padding = array<i64: 0, 1>} : (tensor<2x2xi32>, tensor<i32>) -> tensor<3x4xi32>\n"
      "  return %0 : tensor<3x4xi32>\n}\n",
      {testing::i32({2, 2}, {1, 2, 3, 4}), testing::i32({}, {9})});
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{9, 9, 9, 9, 1, 9, 2, 9, 3, 9, 4, 9}));
}

TEST(ProgramStructure, ZeroDimensionalAndEmptyTensors) {
  const auto out =
      run("func.func @main(%s: tensor<i1>, %e: tensor<0x3xf64>) -> (tensor<1x1xi1>, "
          "tensor<3x0xf64>, tensor<0x6xf64>) {\n"
          "  %0 = stablehlo.reshape %s : (tensor<i1>) -> tensor<1x1xi1>\n"
          "  %1 = stablehlo.transpose %e, dims = [1, 0] : (tensor<0x3xf64>) -> tensor<3x0xf64>\n"
          "  %2 = stablehlo.concatenate %e, %e, dim = 1 : (tensor<0x3xf64>, tensor<0x3xf64>) -> "
          "tensor<0x6xf64>\n"
          "  return %0, %1, %2 : tensor<1x1xi1>, tensor<3x0xf64>, tensor<0x6xf64>\n}\n",
          {testing::pred({}, {1}), testing::f64({0, 3}, {})});
  EXPECT_EQ(values<uint8_t>(out[0]), (std::vector<uint8_t>{1}));
  EXPECT_EQ(out[1].shape(), (Shape{3, 0}));
  EXPECT_EQ(out[2].shape(), (Shape{0, 6}));
}

// reshape is a view where the memory allows it: of a dense row-major operand, and of a strided
// one when only unit dims come or go; other reshapes of strided operands copy in row-major
// order.
TEST(ProgramStructure, ReshapeViewsAndCopies) {
  const Tensor dense = testing::f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor flat = reshape(dense, {6});
  EXPECT_EQ(flat.storage(), dense.storage());
  EXPECT_EQ(values<float>(flat), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Tensor strided = testing::column_major(dense);  // the same values, column-major memory
  const Tensor unit = reshape(strided, {2, 1, 3, 1});
  EXPECT_EQ(unit.storage(), strided.storage());
  EXPECT_EQ(values<float>(unit), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values<float>(reshape(unit, {1, 2, 3})), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Tensor regrouped = reshape(strided, {3, 2});
  EXPECT_NE(regrouped.storage(), strided.storage());
  EXPECT_EQ(values<float>(regrouped), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values<float>(reshape(strided, {6})), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // A view of a slice keeps its offset.
  const Tensor row = Tensor(dense.storage(), DType::kF32, {1, 3}, {3, 1}, 3);
  EXPECT_EQ(values<float>(reshape(row, {3})), (std::vector<float>{4, 5, 6}));
}

TEST(ProgramStructure, StridedInputsAndFreshResults) {
  // A column-major 2x3 view of memory [1..6]: logical rows (1 3 5), (2 4 6).
  Tensor base = testing::f32({6}, {1, 2, 3, 4, 5, 6});
  Tensor view(base.storage(), DType::kF32, {2, 3}, {1, 2});
  const std::string text = unary_program("tensor<2x3xf32>", "tensor<2x3xf32>",
                                         "stablehlo.optimization_barrier %x : tensor<2x3xf32>");
  const auto out = run(text, {view});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  EXPECT_NE(out[0].storage(), base.storage());  // never the input's memory
  EXPECT_TRUE(out[0].is_contiguous(Order::kRowMajor));
}

}  // namespace
}  // namespace ndbuf::program
