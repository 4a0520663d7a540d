// Layouts of arguments: which arguments count as read in a loop or by rows, the copy made for
// loops, and the same bits with and without it.
#include "program/exec/loop_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using testing::expect_same_results;
using testing::f32;
using testing::ramp;

// x (4 x 3) col by col: element (i, j) at j * 4 + i.
Tensor column_major_4x3(const std::vector<float>& by_column) {
  const Tensor dense = f32({3, 4}, by_column);
  return Tensor(dense.storage(), DType::kF32, {4, 3}, {1, 4});
}

// %w is read by the while body, %v by an if inside it; %x only starts the loop's state and %u
// is read after the loop.
constexpr const char* kLoopReads = R"(
func.func @main(%w: tensor<2xf32>, %x: tensor<2xf32>, %u: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<2xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %i2 = stablehlo.add %i, %one : tensor<i64>
      %b = stablehlo.multiply %a, %w : tensor<2xf32>
      %first = stablehlo.compare EQ, %i, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %c = "stablehlo.if"(%first) ({
        %d = stablehlo.add %b, %v : tensor<2xf32>
        stablehlo.return %d : tensor<2xf32>
      }, {
        stablehlo.return %b : tensor<2xf32>
      }) : (tensor<i1>) -> tensor<2xf32>
      stablehlo.return %i2, %c : tensor<i64>, tensor<2xf32>
    }
  %s = stablehlo.add %r#1, %u : tensor<2xf32>
  return %s : tensor<2xf32>
}
)";

TEST(LoopLayout, FindsTheArgumentsLoopsRead) {
  const PlannedModule program = compile_module(kLoopReads, true);
  EXPECT_EQ(args_read_in_loops(*program.plan, *program.module->find("main")),
            (std::vector<bool>{true, false, false, true}));
}

TEST(LoopLayout, CopiesStridedHostArgumentsOnce) {
  const Tensor col = column_major_4x3({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor row = loop_layout(col);
  ASSERT_TRUE(row.is_contiguous(Order::kRowMajor));
  EXPECT_NE(row.storage(), col.storage());
  // Row i of the copy: elements (i, 0), (i, 1), (i, 2), at i, 4 + i and 8 + i of col's memory.
  const auto* values = static_cast<const float*>(row.data());
  EXPECT_EQ(std::vector<float>(values, values + 12),
            (std::vector<float>{1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}));
  const Tensor dense = f32({4, 3}, ramp(12, 0.1f, 0.0f));
  EXPECT_EQ(loop_layout(dense).storage(), dense.storage());
  // A broadcast view over 20 MB of elements stays a view: copying it is not worth its memory.
  const Tensor one = f32({1}, {2.5f});
  const Tensor wide(one.storage(), DType::kF32, {5000, 1000}, {0, 0});
  ASSERT_GT(wide.nbytes(), kLoopLayoutMaxBytes);
  EXPECT_EQ(loop_layout(wide).storage(), one.storage());
}

// A loop that slices rows of a column-major data matrix, multiplies them by a column-major
// weight matrix and adds a bias: the same bits with the copies as without.
TEST(LoopLayout, SameResultsWithAndWithoutTheCopies) {
  const std::string text = R"(
func.func @main(%x: tensor<12x5xf32>, %w: tensor<5x5xf32>, %h0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %four = stablehlo.constant dense<4> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %n = stablehlo.constant dense<9> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %h = %h0) : tensor<i64>, tensor<3x5xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %k = stablehlo.remainder %i, %four : tensor<i64>
      %start = stablehlo.multiply %k, %three : tensor<i64>
      %xb = stablehlo.dynamic_slice %x, %start, %zero, sizes = [3, 5] : (tensor<12x5xf32>, tensor<i64>, tensor<i64>) -> tensor<3x5xf32>
      %hw = stablehlo.dot_general %h, %w, contracting_dims = [1] x [0] : (tensor<3x5xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
      %s = stablehlo.add %hw, %xb : tensor<3x5xf32>
      %t = stablehlo.tanh %s : tensor<3x5xf32>
      %i2 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %i2, %t : tensor<i64>, tensor<3x5xf32>
    }
  return %r#1 : tensor<3x5xf32>
}
)";
  const Tensor x_rows = f32({5, 12}, ramp(60, 0.37f, 0.1f));
  const Tensor x(x_rows.storage(), DType::kF32, {12, 5}, {1, 12});
  const Tensor w_rows = f32({5, 5}, ramp(25, 0.21f, -0.2f));
  const Tensor w(w_rows.storage(), DType::kF32, {5, 5}, {1, 5});
  const Tensor h0 = f32({3, 5}, ramp(15, 0.5f, 0.0f));
  CompileOptions plain;
  plain.loop_layouts = false;
  const std::vector<Tensor> copied = execute(*compile(text), {x, w, h0});
  expect_same_results(copied, execute(*compile(text, Device{}, plain), {x, w, h0}),
                      "runs with and without loop layouts");
  // The recurrence h <- tanh(h w + x[3k : 3k + 3, ]), k = i mod 4, in double precision.
  const auto* wr = static_cast<const float*>(w_rows.data());  // w(p, j) at j * 5 + p
  const auto* xr = static_cast<const float*>(x_rows.data());  // x(i, j) at j * 12 + i
  const auto* h0v = static_cast<const float*>(h0.data());
  std::vector<double> h(h0v, h0v + 15);
  for (int i = 0; i < 9; ++i) {
    std::vector<double> next(15);
    for (int r = 0; r < 3; ++r) {
      for (int j = 0; j < 5; ++j) {
        double sum = xr[j * 12 + (i % 4) * 3 + r];
        for (int p = 0; p < 5; ++p) sum += h[r * 5 + p] * wr[j * 5 + p];
        next[r * 5 + j] = std::tanh(sum);
      }
    }
    h = next;
  }
  const auto* got = static_cast<const float*>(copied[0].data());
  for (int k = 0; k < 15; ++k) EXPECT_NEAR(got[k], h[k], 1e-5) << k;
}

// An embedding lookup and a row softmax read their first argument by rows; an element-wise
// op, a gather of columns and the lookup's index vector do not; a loop's argument does.
TEST(LoopLayout, RowMajorArgumentsAreThoseReadByRowsOrInLoops) {
  const std::string lookup = R"(
func.func @main(%table: tensor<10x4xf32>, %idx: tensor<3x1xi32>) -> tensor<3x4xf32> {
  %y = "stablehlo.gather"(%table, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>, indices_are_sorted = false} : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(lookup)), (std::vector<bool>{true, false}));
  const std::string columns = R"(
func.func @main(%table: tensor<10x4xf32>, %idx: tensor<3x1xi32>) -> tensor<10x3xf32> {
  %y = "stablehlo.gather"(%table, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 10, 1>, indices_are_sorted = false} : (tensor<10x4xf32>, tensor<3x1xi32>) -> tensor<10x3xf32>
  return %y : tensor<10x3xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(columns)), (std::vector<bool>{false, false}));
  const std::string softmax = R"(
func.func @main(%x: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<8x16xf32>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
  %y = stablehlo.divide %e, %sb : tensor<8x16xf32>
  %o = stablehlo.add %y, %b : tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
)";
  const std::vector<bool> soft = row_major_arguments(*compile(softmax));
  EXPECT_TRUE(soft[0]);
  const std::string elementwise = R"(
func.func @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y = stablehlo.negate %x : tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(elementwise)), (std::vector<bool>{false}));
  // A batch of products reads its operands by rows; one product's operands go to the BLAS
  // in either layout.
  const std::string batched = R"(
func.func @main(%a: tensor<4x3x5xf32>, %b: tensor<4x5x2xf32>, %c: tensor<3x5xf32>, %d: tensor<5x2xf32>) -> (tensor<4x3x2xf32>, tensor<3x2xf32>) {
  %y = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x3x5xf32>, tensor<4x5x2xf32>) -> tensor<4x3x2xf32>
  %z = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return %y, %z : tensor<4x3x2xf32>, tensor<3x2xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(batched)), (std::vector<bool>{true, true, false, false}));
  const std::string convolution = R"(
func.func @main(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32> {
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
  return %y : tensor<1x3x3x4xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(convolution)), (std::vector<bool>{true, true}));
  // Max-pool's gradient reads the operand and the cotangent by rows; its init value is a scalar.
  const std::string pool_gradient = R"(
func.func @main(%x: tensor<2x4x4x3xf32>, %g: tensor<2x2x2x3xf32>, %z: tensor<f32>) -> tensor<2x4x4x3xf32> {
  %dx = "stablehlo.select_and_scatter"(%x, %g, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<2x4x4x3xf32>, tensor<2x2x2x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
  return %dx : tensor<2x4x4x3xf32>
}
)";
  EXPECT_EQ(row_major_arguments(*compile(pool_gradient)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(row_major_arguments(*compile(kLoopReads)),
            (std::vector<bool>{true, false, false, true}));
  CompileOptions no_loops;
  no_loops.loop_layouts = false;
  EXPECT_EQ(row_major_arguments(*compile(kLoopReads, Device{}, no_loops)),
            (std::vector<bool>{false, false, false, false}));
}

}  // namespace
}  // namespace ndbuf::program
