// Result layouts (CompileOptions::result_layouts): a fused loop whose result @main returns and
// nothing else reads writes it column-major when its full-size operands all are (R's
// matrices), and row-major in every other case. Values are worked out by hand and compared
// with the run that always writes row-major.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/shape.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

// A 2 x 3 f32 tensor of `row_major_values` (listed row by row) stored column-major.
Tensor column_major(const std::vector<float>& row_major_values) {
  Tensor t = Tensor::allocate(DType::kF32, {2, 3}, Order::kColumnMajor);
  auto* data = static_cast<float*>(t.data());
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) data[i + 2 * j] = row_major_values[i * 3 + j];
  }
  return t;
}

const Strides kColumns{1, 2};
const Strides kRows{3, 1};

const std::vector<float> kX{1, 2, 3, 4, 5, 6};
const std::vector<float> kY{0.5f, -1, 2, 10, 0, -3};
// x * y + x, row by row.
const std::vector<float> kFma{1.5f, 0, 9, 44, 5, -12};

const char* kFused = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = stablehlo.multiply %x, %y : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
)";

std::vector<Tensor> run(const std::string& text, std::vector<Tensor> inputs, bool layouts = true) {
  CompileOptions options;
  options.result_layouts = layouts;
  return execute(*compile(text, Device{}, options), std::move(inputs));
}

TEST(ResultLayout, ColumnMajorOperandsGiveAColumnMajorResult) {
  const auto out = run(kFused, {column_major(kX), column_major(kY)});
  EXPECT_EQ(out[0].strides(), kColumns);
  EXPECT_EQ(values<float>(out[0]), kFma);
  const auto plain = run(kFused, {column_major(kX), column_major(kY)}, false);
  EXPECT_EQ(plain[0].strides(), kRows);
  EXPECT_EQ(values<float>(plain[0]), kFma);
}

TEST(ResultLayout, RowMajorOrMixedOperandsGiveARowMajorResult) {
  EXPECT_EQ(run(kFused, {f32({2, 3}, kX), f32({2, 3}, kY)})[0].strides(), kRows);
  const auto mixed = run(kFused, {column_major(kX), f32({2, 3}, kY)});
  EXPECT_EQ(mixed[0].strides(), kRows);
  EXPECT_EQ(values<float>(mixed[0]), kFma);
}

// Splat constants and 0-d operands read zero strides in either order.
TEST(ResultLayout, SplatsAndScalarsFollowTheFullSizeOperands) {
  const std::string text = R"(
func.func @main(%x: tensor<2x3xf32>, %lo: tensor<f32>) -> tensor<2x3xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
  %hi = stablehlo.constant dense<9.0> : tensor<f32>
  %m = stablehlo.multiply %x, %two : tensor<2x3xf32>
  %c = stablehlo.clamp %lo, %m, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}
)";
  const auto out = run(text, {column_major(kX), f32({}, {3})});
  EXPECT_EQ(out[0].strides(), kColumns);
  // clamp(3, 2x, 9) of 1..6: 3, 4, 6, 8, 9, 9.
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{3, 4, 6, 8, 9, 9}));
}

// A broadcast leaf is read by the output's row-major index.
TEST(ResultLayout, ABroadcastOperandKeepsRowMajor) {
  const std::string text = R"(
func.func @main(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %m = stablehlo.multiply %x, %bb : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
)";
  const auto out = run(text, {column_major(kX), f32({3}, {1, 0, -1})});
  EXPECT_EQ(out[0].strides(), kRows);
  // x * b + x: 2, 2, 0, 8, 5, 0.
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 2, 0, 8, 5, 0}));
}

// A returned value that another op also reads stays row-major (that op's summation order may
// follow the layout it reads), and so do the values of functions other than @main.
TEST(ResultLayout, OnlyResultsNothingElseReadsAreFree) {
  const std::string read_again = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.multiply %x, %y : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  %r = stablehlo.reduce(%s init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %s, %r : tensor<2x3xf32>, tensor<2xf32>
}
)";
  const auto out = run(read_again, {column_major(kX), column_major(kY)});
  EXPECT_EQ(out[0].strides(), kRows);
  EXPECT_EQ(values<float>(out[0]), kFma);
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{10.5f, 37}));
  const std::string called = R"(
func.func private @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = stablehlo.multiply %x, %y : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = func.call @f(%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
)";
  const auto through_call = run(called, {column_major(kX), column_major(kY)});
  EXPECT_EQ(through_call[0].strides(), kRows);
  EXPECT_EQ(values<float>(through_call[0]), kFma);
}

// A donated column-major argument is written over in place, in its own layout.
TEST(ResultLayout, ADonatedColumnMajorArgumentTakesTheResult) {
  const std::string text = R"(
func.func @main(%x: tensor<2x3xf32> {tf.aliasing_output = 0 : i32}, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = stablehlo.multiply %x, %y : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
)";
  for (const bool layouts : {true, false}) {
    Tensor x = column_major(kX);
    const void* memory = x.data();
    std::vector<Tensor> inputs;
    inputs.push_back(std::move(x));
    inputs.push_back(column_major(kY));
    const auto out = run(text, std::move(inputs), layouts);
    EXPECT_EQ(values<float>(out[0]), kFma);
    // Row-major results never take column-major memory.
    EXPECT_EQ(out[0].data() == memory, layouts) << layouts;
  }
}

// Large enough for parallel blocks of tiles: every element in place, column-major where the
// layout is free and staged then transposed where it is not.
TEST(ResultLayout, LargeColumnMajorRunsMatchTheRowMajorRun) {
  const std::string text = R"(
func.func @main(%x: tensor<700x900xf32>, %y: tensor<700x900xf32>) -> tensor<700x900xf32> {
  %m = stablehlo.multiply %x, %y : tensor<700x900xf32>
  %e = stablehlo.exponential %m : tensor<700x900xf32>
  %s = stablehlo.subtract %e, %x : tensor<700x900xf32>
  return %s : tensor<700x900xf32>
}
)";
  const Shape shape{700, 900};
  const auto fill = [&](float scale) {
    Tensor t = Tensor::allocate(DType::kF32, shape, Order::kColumnMajor);
    auto* data = static_cast<float*>(t.data());
    for (int64_t k = 0; k < t.numel(); ++k) data[k] = scale * static_cast<float>(k % 97) / 97;
    return t;
  };
  const auto out = run(text, {fill(1), fill(-2)});
  const auto plain = run(text, {fill(1), fill(-2)}, false);
  EXPECT_EQ(out[0].strides(), contiguous_strides(shape, Order::kColumnMajor));
  const std::vector<float> a = values<float>(out[0]);
  const std::vector<float> b = values<float>(plain[0]);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  // Element (i, j) by hand: column-major position k = i + 700 j.
  const int64_t i = 123, j = 456, k = i + 700 * j;
  const float x = static_cast<float>(k % 97) / 97;
  EXPECT_FLOAT_EQ(a[static_cast<size_t>(i * 900 + j)], std::exp(x * -2 * x) - x);
  // The row-major run stages the same loop column-major and transposes it once.
  EXPECT_EQ(plain[0].strides(), contiguous_strides(shape, Order::kRowMajor));
}

}  // namespace
}  // namespace ndbuf::program
