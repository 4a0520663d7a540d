// dot_general products whose result is a vector per batch (M or N of 1) run through gemv: the
// matrix in row- or column-major order, the vector contiguous or strided, batched or not,
// f32 and f64, against a loop in double.
#include <gtest/gtest.h>

#include <random>

#include "program/ops/contraction/dot_general.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

// A rows x cols matrix of `values` (row-major order) stored column-major when asked.
Tensor matrix(DType dtype, int64_t rows, int64_t cols, const std::vector<double>& values,
              bool column) {
  const Tensor dense = dtype == DType::kF64 ? f64({rows, cols}, values)
                                            : f32({rows, cols}, {values.begin(), values.end()});
  return column ? column_major(dense) : dense;
}

// `values` as a vector whose elements lie `step` apart.
Tensor spaced_vector(DType dtype, const std::vector<double>& values, int64_t step) {
  const auto count = static_cast<int64_t>(values.size());
  std::vector<double> spread(static_cast<size_t>(count * step), -99.0);
  for (int64_t i = 0; i < count; ++i) spread[static_cast<size_t>(i * step)] = values[i];
  const Tensor backing = dtype == DType::kF64 ? f64({count * step}, spread)
                                              : f32({count * step}, {spread.begin(), spread.end()});
  return Tensor(backing.storage(), dtype, {count}, {step}, backing.offset());
}

std::vector<double> as_doubles(const Tensor& t) {
  if (t.dtype() == DType::kF64) return values<double>(t);
  const auto v = values<float>(t);
  return {v.begin(), v.end()};
}

std::vector<double> uniform(std::mt19937& rng, int64_t count) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(count));
  for (auto& x : v) x = u(rng);
  return v;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

TEST(ProgramDotVector, MatrixVectorAndVectorMatrixInEveryLayout) {
  std::mt19937 rng(3);
  const int64_t m = 37, k = 53;
  for (DType dtype : {DType::kF32, DType::kF64}) {
    const double tol = dtype == DType::kF64 ? 1e-12 : 1e-4;
    const auto a = uniform(rng, m * k), x = uniform(rng, k), y = uniform(rng, m);
    std::vector<double> ax(m, 0.0), ya(k, 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        ax[i] += a[i * k + p] * x[p];
        ya[p] += y[i] * a[i * k + p];
      }
    }
    for (bool column : {false, true}) {
      for (int64_t step : {1, 3}) {
        const Tensor am = matrix(dtype, m, k, a, column);
        expect_close(as_doubles(dot(am, spaced_vector(dtype, x, step), dtype)), ax, tol);
        expect_close(as_doubles(dot(spaced_vector(dtype, y, step), am, dtype)), ya, tol);
      }
    }
  }
}

TEST(ProgramDotVector, BatchedMatrixVector) {
  std::mt19937 rng(5);
  const int64_t batches = 6, m = 20, k = 30;
  const auto a = uniform(rng, batches * m * k), x = uniform(rng, batches * k);
  std::vector<double> want(static_cast<size_t>(batches * m), 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) want[b * m + i] += a[(b * m + i) * k + p] * x[b * k + p];
    }
  }
  DotDimensions dims;
  dims.lhs_batching_dimensions = {0};
  dims.rhs_batching_dimensions = {0};
  dims.lhs_contracting_dimensions = {2};
  dims.rhs_contracting_dimensions = {1};
  const Tensor got = dot_general(f64({batches, m, k}, a), f64({batches, k}, x), dims, DType::kF64);
  ASSERT_EQ(got.shape(), (Shape{batches, m}));
  expect_close(as_doubles(got), want, 1e-12);
  // The same with the matrices column-major inside each batch (transposed views).
  const Tensor stored = f64({batches, k, m}, [&] {
    std::vector<double> t(a.size());
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t p = 0; p < k; ++p) t[(b * k + p) * m + i] = a[(b * m + i) * k + p];
      }
    }
    return t;
  }());
  const Tensor view(stored.storage(), DType::kF64, {batches, m, k}, {k * m, 1, m}, stored.offset());
  expect_close(as_doubles(dot_general(view, f64({batches, k}, x), dims, DType::kF64)), want, 1e-12);
}

}  // namespace
}  // namespace ndbuf::program
