// Tests of the convolution kernel (ops/contraction/convolution.hpp): the GEMM path and the plain
// loops against an independent naive convolution (convolution_naive.hpp) over every attribute,
// layout and group kind, plus cases worked by hand.
#include "program/ops/contraction/convolution.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/ops/contraction/convolution_naive.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

// Canonical dimension numbers for `spatial` spatial dims: [b, 0.., f]x[0.., i, o]->[b, 0.., f].
ConvDimensions canonical_dims(size_t spatial) {
  ConvDimensions d;
  const auto s = static_cast<int64_t>(spatial);
  d.input_batch = 0;
  d.input_feature = s + 1;
  d.kernel_input_feature = s;
  d.kernel_output_feature = s + 1;
  d.output_batch = 0;
  d.output_feature = s + 1;
  for (int64_t k = 0; k < s; ++k) {
    d.input_spatial.push_back(k + 1);
    d.kernel_spatial.push_back(k);
    d.output_spatial.push_back(k + 1);
  }
  return d;
}

ConvConfig config_of(const NaiveWindow& n, size_t spatial) {
  ConvConfig c;
  c.dims = canonical_dims(spatial);
  c.window = {n.stride, n.padding, n.lhs_dilation, n.rhs_dilation, n.reverse};
  c.feature_group_count = n.feature_groups;
  c.batch_group_count = n.batch_groups;
  return c;
}

NaiveWindow plain_window(size_t spatial) {
  NaiveWindow n;
  n.stride.assign(spatial, 1);
  n.lhs_dilation.assign(spatial, 1);
  n.rhs_dilation.assign(spatial, 1);
  n.padding.assign(spatial, {0, 0});
  n.reverse.assign(spatial, false);
  return n;
}

// Small integers, so every sum is exact in f32 whatever the order.
std::vector<double> small_ints(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-4, 4);
  std::vector<double> v(static_cast<size_t>(count));
  for (double& x : v) x = pick(rng);
  return v;
}

struct Case {
  Shape lhs, rhs;
  NaiveWindow window;
};

// Runs the case in `dtype` through both paths and compares each with the naive result.
void expect_matches_naive(const Case& k, DType dtype, unsigned seed) {
  const auto x = small_ints(count_of(k.lhs), seed);
  const auto w = small_ints(count_of(k.rhs), seed + 1);
  Shape shape;
  const auto expected = naive_convolution(x, k.lhs, w, k.rhs, k.window, &shape);
  const ConvConfig c = config_of(k.window, k.lhs.size() - 2);
  const Tensor lhs = tensor_from(dtype, k.lhs, x), rhs = tensor_from(dtype, k.rhs, w);
  const Tensor fast = convolution(lhs, rhs, c, dtype);
  const Tensor loops = convolution_reference(lhs, rhs, c, dtype);
  EXPECT_EQ(fast.shape(), shape);
  EXPECT_EQ(doubles_of(fast), expected);
  EXPECT_EQ(doubles_of(loops), expected);
  // Column-major operands (R's arrays) take the GEMM path's transposing copy.
  EXPECT_EQ(doubles_of(convolution(column_major(lhs), column_major(rhs), c, dtype)), expected);
}

Case case_2d(Shape lhs, Shape rhs) { return {std::move(lhs), std::move(rhs), plain_window(2)}; }

TEST(ProgramConvolution, HandWorkedOneDimensional) {
  // x = 1..5, kernel (1, 0, -1), padding 1 each side: out[j] = x[j-1] - x[j+1].
  ConvConfig c = config_of(plain_window(1), 1);
  c.window.padding = {{1, 1}};
  const Tensor x = f32({1, 5, 1}, {1, 2, 3, 4, 5});
  const Tensor w = f32({3, 1, 1}, {1, 0, -1});
  EXPECT_EQ(values<float>(convolution(x, w, c, DType::kF32)),
            (std::vector<float>{-2, -2, -2, -2, 4}));
  // Reversed, the window meets the kernel backwards: out[j] = x[j+1] - x[j-1].
  c.window.reversal = {true};
  EXPECT_EQ(values<float>(convolution(x, w, c, DType::kF32)), (std::vector<float>{2, 2, 2, 2, -4}));
  EXPECT_EQ(values<float>(convolution_reference(x, w, c, DType::kF32)),
            (std::vector<float>{2, 2, 2, 2, -4}));
}

TEST(ProgramConvolution, SpecExampleWithBaseDilationAndStride) {
  // The spec's example: a 4 x 4 image dilated by 2, a 3 x 3 window of ones, stride 4.
  ConvConfig c = config_of(plain_window(2), 2);
  c.window.strides = {4, 4};
  c.window.lhs_dilation = {2, 2};
  const Tensor x = i64({1, 4, 4, 1}, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
  const Tensor w = i64({3, 3, 1, 1}, std::vector<int64_t>(9, 1));
  const Tensor r = convolution(x, w, c, DType::kI64);
  EXPECT_EQ(r.shape(), (Shape{1, 2, 2, 1}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{10, 26, 46, 62}));
}

TEST(ProgramConvolution, EveryWindowAttributeAgainstTheNaiveConvolution) {
  Case k = case_2d({2, 7, 6, 3}, {3, 2, 3, 4});
  k.window.stride = {2, 1};
  k.window.padding = {{1, 2}, {0, 1}};
  k.window.lhs_dilation = {2, 1};
  k.window.rhs_dilation = {1, 2};
  k.window.reverse = {true, false};
  for (DType dtype : {DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(dtype_name(dtype));
    expect_matches_naive(k, dtype, 11);
  }
}

TEST(ProgramConvolution, NegativePaddingCutsTheInput) {
  Case k = case_2d({1, 6, 5, 2}, {2, 2, 2, 3});
  k.window.padding = {{-1, 1}, {2, -2}};
  expect_matches_naive(k, DType::kF32, 3);
  // Padding that cuts away more than the window needs leaves no windows at all.
  Case none = case_2d({1, 3, 3, 1}, {2, 2, 1, 1});
  none.window.padding = {{-2, 0}, {0, 0}};
  expect_matches_naive(none, DType::kF32, 4);
}

TEST(ProgramConvolution, FeatureGroupsAndDepthwise) {
  Case grouped = case_2d({2, 5, 5, 4}, {3, 3, 2, 6});
  grouped.window.feature_groups = 2;
  expect_matches_naive(grouped, DType::kF32, 5);
  expect_matches_naive(grouped, DType::kI32, 5);
  // Depthwise: one group per input feature, two outputs each.
  Case depthwise = case_2d({2, 6, 6, 3}, {3, 3, 1, 6});
  depthwise.window.feature_groups = 3;
  depthwise.window.padding = {{1, 1}, {1, 1}};
  expect_matches_naive(depthwise, DType::kF32, 6);
  expect_matches_naive(depthwise, DType::kF64, 6);
}

TEST(ProgramConvolution, BatchGroups) {
  Case k = case_2d({4, 5, 4, 3}, {2, 2, 3, 6});
  k.window.batch_groups = 2;
  k.window.stride = {2, 1};
  expect_matches_naive(k, DType::kF32, 7);
  expect_matches_naive(k, DType::kI64, 7);
}

TEST(ProgramConvolution, OneAndThreeSpatialDims) {
  Case one{{3, 11, 2}, {4, 2, 3}, plain_window(1)};
  one.window.stride = {3};
  one.window.padding = {{2, 1}};
  one.window.rhs_dilation = {2};
  expect_matches_naive(one, DType::kF32, 8);
  Case three{{2, 5, 4, 6, 2}, {2, 3, 2, 2, 3}, plain_window(3)};
  three.window.stride = {1, 2, 1};
  three.window.padding = {{1, 0}, {1, 1}, {0, -1}};
  three.window.lhs_dilation = {1, 1, 2};
  three.window.reverse = {false, true, true};
  expect_matches_naive(three, DType::kF32, 9);
  expect_matches_naive(three, DType::kI32, 9);
}

TEST(ProgramConvolution, PanelsSplitAcrossManyOutputPositions) {
  // 80 x 80 = 6400 output positions per image with a 1 x 1 kernel.
  expect_matches_naive(case_2d({2, 80, 80, 1}, {1, 1, 1, 2}), DType::kF32, 10);
  // Over 2 MiB of panels: small panels in parallel, runs crossing from one image to the next.
  Case many = case_2d({4, 64, 64, 8}, {3, 3, 8, 4});
  many.window.padding = {{1, 1}, {1, 1}};
  expect_matches_naive(many, DType::kF32, 14);
  Case wide = case_2d({1, 40, 40, 16}, {3, 3, 16, 8});
  wide.window.padding = {{1, 1}, {1, 1}};
  expect_matches_naive(wide, DType::kF32, 12);
}

TEST(ProgramConvolution, ChannelsFirstLayoutsAndStridedOperands) {
  // NCHW input, OIHW kernel, NCHW result: the canonical data viewed through permuted strides.
  Case k = case_2d({2, 6, 5, 3}, {3, 2, 3, 4});
  k.window.padding = {{1, 1}, {0, 2}};
  k.window.stride = {1, 2};
  const auto x = small_ints(count_of(k.lhs), 21);
  const auto w = small_ints(count_of(k.rhs), 22);
  Shape shape;
  const auto expected = naive_convolution(x, k.lhs, w, k.rhs, k.window, &shape);
  ConvConfig c = config_of(k.window, 2);
  c.dims = {0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
  for (DType dtype : {DType::kF32, DType::kI32}) {
    const Tensor lhs = permuted(tensor_from(dtype, k.lhs, x), {0, 3, 1, 2});
    const Tensor rhs = permuted(tensor_from(dtype, k.rhs, w), {3, 2, 0, 1});
    for (const Tensor& r :
         {convolution(lhs, rhs, c, dtype), convolution_reference(lhs, rhs, c, dtype)}) {
      EXPECT_EQ(r.shape(), (Shape{shape[0], shape[3], shape[1], shape[2]}));
      EXPECT_EQ(doubles_of(permuted(r, {0, 2, 3, 1})), expected);
    }
  }
}

TEST(ProgramConvolution, HalfFloatsAccumulateInF32AndRoundOnce) {
  // 2048 + 1 + 1 = 2050 is an f16 value; adding in f16 would stop at 2048 (2049 ties to even).
  const ConvConfig c = config_of(plain_window(1), 1);
  const Tensor ones16 = f16({3, 1, 1}, {1, 1, 1});
  EXPECT_EQ(half_values(convolution(f16({1, 3, 1}, {2048, 1, 1}), ones16, c, DType::kF16)),
            (std::vector<double>{2050}));
  // bf16 keeps 8 bits: 256 + 1 + 1 = 258 exactly, 257 would round back to 256.
  const Tensor ones = bf16({3, 1, 1}, {1, 1, 1});
  EXPECT_EQ(half_values(convolution(bf16({1, 3, 1}, {256, 1, 1}), ones, c, DType::kBF16)),
            (std::vector<double>{258}));
  Case k = case_2d({2, 5, 5, 2}, {3, 3, 2, 3});
  k.window.padding = {{1, 1}, {1, 1}};
  expect_matches_naive(k, DType::kF16, 13);
  expect_matches_naive(k, DType::kBF16, 13);
}

// The 16-bit result of each output is the f32 convolution of the widened operands rounded once
// (to nearest, ties to even): features adjacent (NHWC), and strided (NCHW) over more features
// than one rounding chunk holds.
TEST(ProgramConvolution, HalfFloatResultsAreTheF32ProductsRoundedOnce) {
  Case k = case_2d({2, 7, 7, 5}, {3, 3, 5, 300});
  k.window.padding = {{1, 1}, {1, 1}};
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> pick(-1.0, 1.0);
  std::vector<double> x(static_cast<size_t>(count_of(k.lhs))), w(count_of(k.rhs));
  for (double& v : x) v = pick(rng);
  for (double& v : w) v = pick(rng);
  ConvConfig channels_last = config_of(k.window, 2), channels_first = channels_last;
  channels_first.dims.output_feature = 1;
  channels_first.dims.output_spatial = {2, 3};
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    const Tensor lhs = tensor_from(dtype, k.lhs, x), rhs = tensor_from(dtype, k.rhs, w);
    const Tensor wide_lhs = tensor_from(DType::kF32, k.lhs, half_values(lhs));
    const Tensor wide_rhs = tensor_from(DType::kF32, k.rhs, half_values(rhs));
    for (const ConvConfig& c : {channels_last, channels_first}) {
      std::vector<double> expected;
      for (float v : values<float>(convolution(wide_lhs, wide_rhs, c, DType::kF32))) {
        expected.push_back(dtype == DType::kF16 ? to_double(to_half(v))
                                                : to_double(to_bfloat16(v)));
      }
      EXPECT_EQ(half_values(convolution(lhs, rhs, c, dtype)), expected) << dtype_name(dtype);
    }
  }
}

TEST(ProgramConvolution, IntegersWrapAndWidenToTheResultType) {
  const ConvConfig c = config_of(plain_window(1), 1);
  const Tensor x = tensor_of(DType::kI8, {1, 2, 1}, std::vector<int8_t>{100, 100});
  const Tensor w = tensor_of(DType::kI8, {2, 1, 1}, std::vector<int8_t>{1, 1});
  // 200 wraps to -56 in i8, as XLA's integer arithmetic does.
  EXPECT_EQ(values<int8_t>(convolution(x, w, c, DType::kI8)), (std::vector<int8_t>{-56}));
  // An i32 result converts the operands first: no wrap.
  EXPECT_EQ(values<int32_t>(convolution(x, w, c, DType::kI32)), (std::vector<int32_t>{200}));
}

TEST(ProgramConvolution, ComplexAndPredicates) {
  using c64 = std::complex<float>;
  const ConvConfig c = config_of(plain_window(1), 1);
  const Tensor x = tensor_of(DType::kC64, {1, 2, 1}, std::vector<c64>{{1, 1}, {2, 0}});
  const Tensor w = tensor_of(DType::kC64, {1, 1, 1}, std::vector<c64>{{0, 1}});
  EXPECT_EQ(values<c64>(convolution(x, w, c, DType::kC64)), (std::vector<c64>{{-1, 1}, {0, 2}}));
  // pred: OR of ANDs over the window.
  const Tensor p = pred({1, 3, 1}, {0, 1, 0});
  const Tensor k = pred({2, 1, 1}, {1, 0});
  EXPECT_EQ(values<uint8_t>(convolution(p, k, c, DType::kPred)), (std::vector<uint8_t>{0, 1}));
}

std::string shape_error(const Shape& lhs, const Shape& rhs, ConvConfig c) {
  try {
    convolution_shape(lhs, rhs, c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ProgramConvolution, DegenerateAndOversizedGeometry) {
  ConvConfig c = config_of(plain_window(1), 1);
  // No images, no features or no kernel outputs: empty or zero results, no crash.
  EXPECT_EQ(
      convolution(f32({0, 5, 2}, {}), f32({3, 2, 4}, std::vector<float>(24, 1)), c, DType::kF32)
          .shape(),
      (Shape{0, 3, 4}));
  EXPECT_EQ(values<float>(convolution(f32({1, 3, 0}, {}), f32({2, 0, 2}, {}), c, DType::kF32)),
            (std::vector<float>(4, 0)));
  EXPECT_EQ(values<int32_t>(convolution(i32({1, 3, 0}, {}), i32({2, 0, 2}, {}), c, DType::kI32)),
            (std::vector<int32_t>(4, 0)));
  EXPECT_EQ(shape_error({1, 5, 1}, {0, 1, 1}, c),
            "convolution: the kernel's spatial dimension 0 must have a positive size, not 0.");
  c.window.padding = {{INT64_MAX - 2, 5}};
  EXPECT_EQ(shape_error({1, 5, 1}, {2, 1, 1}, c),
            "convolution: the padded input size of dim 0, 9223372036854775805 + 5 + 5, does not "
            "fit a 64-bit integer.");
  c.window.padding = {};
  c.window.rhs_dilation = {INT64_MAX};
  EXPECT_EQ(shape_error({1, 5, 1}, {3, 1, 1}, c),
            "convolution: the dilated window size of dim 0, (3 - 1) * 9223372036854775807 + 1, "
            "does not fit a 64-bit integer.");
  // Operands of rank 1 have no room for a batch and a feature dim.
  EXPECT_EQ(shape_error({4}, {4}, ConvConfig{}),
            "convolution: the operands need a batch and a feature dimension, not shape (4).");
}

}  // namespace
}  // namespace ndbuf::program
