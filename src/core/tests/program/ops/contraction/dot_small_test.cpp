// Small products without the BLAS (dot_small.hpp): which shapes take the path, and the bits of
// each element, a chain of fused multiply-adds over the contracting index from zero computed
// here element by element, over row- and column-major and transposed operands.
#include "program/ops/contraction/dot_small.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "program/ops/contraction/dot_general.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::values;

DotDimensions contracting(int64_t lhs, int64_t rhs) {
  DotDimensions dims;
  dims.lhs_contracting_dimensions = {lhs};
  dims.rhs_contracting_dimensions = {rhs};
  return dims;
}

template <class C>
Tensor random_matrix(DType dtype, const Shape& shape, Order order, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> draw(-2.0, 2.0);
  std::vector<C> v(static_cast<size_t>(shape[0] * shape[1]));
  for (C& x : v) x = static_cast<C>(draw(generator));
  return make_dense(testing::tensor_of(dtype, shape, v), order);
}

// lhs (M x K, or K x M when `transposed`) times rhs (K x N, or N x K), each element computed
// here as fma chains in ascending k, against dot_general's result, bit for bit.
template <class C>
void expect_fma_chains(DType dtype, int64_t m, int64_t k, int64_t n, Order order, bool transposed) {
  const Shape lhs_shape = transposed ? Shape{k, m} : Shape{m, k};
  const Shape rhs_shape = transposed ? Shape{n, k} : Shape{k, n};
  const Tensor lhs = random_matrix<C>(dtype, lhs_shape, order, 7);
  const Tensor rhs = random_matrix<C>(dtype, rhs_shape, order, 11);
  const DotDimensions dims = transposed ? contracting(0, 1) : contracting(1, 0);
  ASSERT_TRUE(plan_dot(lhs.shape(), rhs.shape(), dims).small);
  const std::vector<C> a = values<C>(lhs), b = values<C>(rhs);
  const std::vector<C> got = values<C>(dot_general(lhs, rhs, dims, dtype));
  ASSERT_EQ(got.size(), static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      C chain = 0;
      double exact = 0;
      for (int64_t p = 0; p < k; ++p) {
        const C x = transposed ? a[p * m + i] : a[i * k + p];
        const C y = transposed ? b[j * k + p] : b[p * n + j];
        chain = std::fma(x, y, chain);
        exact += static_cast<double>(x) * y;
      }
      EXPECT_EQ(got[i * n + j], chain) << m << "x" << k << "x" << n << " at " << i << "," << j;
      EXPECT_NEAR(got[i * n + j], exact, 1e-5 * k * 4);
    }
  }
}

TEST(SmallDot, EachElementIsAnFmaChainInEveryLayout) {
  for (Order order : {Order::kRowMajor, Order::kColumnMajor}) {
    for (bool transposed : {false, true}) {
      expect_fma_chains<float>(DType::kF32, 10, 10, 10, order, transposed);
      expect_fma_chains<float>(DType::kF32, 3, 7, 5, order, transposed);
      expect_fma_chains<float>(DType::kF32, 16, 16, 16, order, transposed);
      expect_fma_chains<double>(DType::kF64, 10, 10, 10, order, transposed);
      expect_fma_chains<double>(DType::kF64, 2, 1, 2, order, transposed);
      expect_fma_chains<double>(DType::kF64, 32, 4, 32, order, transposed);
      expect_fma_chains<float>(DType::kF32, 2, 256, 8, order, transposed);
      expect_fma_chains<float>(DType::kF32, 7, 3, 33, order, transposed);
    }
  }
}

TEST(SmallDot, OnlySmallMatrixProductsTakeThePath) {
  const auto small = [](const Shape& lhs, const Shape& rhs, const DotDimensions& dims) {
    return plan_dot(lhs, rhs, dims).small;
  };
  EXPECT_TRUE(small({16, 16}, {16, 16}, contracting(1, 0)));   // 4096 multiply-adds
  EXPECT_FALSE(small({16, 17}, {17, 16}, contracting(1, 0)));  // 4352
  EXPECT_FALSE(small({1, 10}, {10, 10}, contracting(1, 0)));   // a vector result: gemv
  EXPECT_FALSE(small({10, 10}, {10, 1}, contracting(1, 0)));
  EXPECT_FALSE(small({10}, {10, 10}, contracting(0, 0)));
  EXPECT_FALSE(small({10, 0}, {0, 10}, contracting(1, 0)));  // nothing to multiply
  EXPECT_TRUE(small({2, 256}, {256, 8}, contracting(1, 0)));
  EXPECT_FALSE(small({2, 257}, {257, 2}, contracting(1, 0)));  // deeper than kSmallDotDepth
  DotDimensions batched = contracting(2, 1);
  batched.lhs_batching_dimensions = {0};
  batched.rhs_batching_dimensions = {0};
  EXPECT_FALSE(small({2, 4, 4}, {2, 4, 4}, batched));
  DotDimensions two = contracting(1, 0);
  two.lhs_contracting_dimensions = {1, 2};
  two.rhs_contracting_dimensions = {0, 1};
  EXPECT_FALSE(small({4, 2, 2}, {2, 2, 4}, two));
}

// Other dtypes leave the path to the BLAS and the generic loop: integer and mixed products
// still give their values.
TEST(SmallDot, OtherDtypesAreLeftToTheOtherPaths) {
  const Tensor a = testing::i32({2, 2}, {1, 2, 3, 4});
  const Tensor b = testing::i32({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(values<int32_t>(dot_general(a, b, contracting(1, 0), DType::kI32)),
            (std::vector<int32_t>{19, 22, 43, 50}));
  const Tensor x = testing::f32({2, 2}, {1, 2, 3, 4});
  const Tensor y = testing::f32({2, 2}, {0.5f, 1, 1.5f, 2});
  const Tensor wide = dot_general(x, y, contracting(1, 0), DType::kF64);
  EXPECT_EQ(values<double>(wide), (std::vector<double>{3.5, 5, 7.5, 11}));
}

}  // namespace
}  // namespace ndbuf::program
