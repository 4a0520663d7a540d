// f16 / bf16 dot_general accumulates in f32: its bits are those of widening both operands to
// f32, one sgemm and rounding each result once (not of a double accumulation, which the values
// here are chosen to tell apart), whatever the operands' layouts and whether they are widened
// in place or packed. Sizes large enough for the parallel widening and rounding loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/blas_threads.hpp"
#include "program/kernels/fortran_blas.hpp"
#include "program/ops/contraction/dot_general.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

std::vector<double> uniform(std::mt19937& rng, int64_t count) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(count));
  for (auto& x : v) x = u(rng);
  return v;
}

// The reference: row-major m x k by k x n through sgemm_ (column-major c^T = b^T a^T) on the
// operands' values as floats, with the BLAS on `blas_threads` threads, each result rounded once
// to `dtype`.
std::vector<double> widened_sgemm(DType dtype, const std::vector<double>& a,
                                  const std::vector<double>& b, int m, int k, int n,
                                  int blas_threads) {
  std::vector<float> af(a.begin(), a.end()), bf(b.begin(), b.end()), c(size_t(m) * n);
  const float one = 1, zero = 0;
  set_blas_threads(blas_threads);
  sgemm_("N", "N", &n, &m, &k, &one, bf.data(), &n, af.data(), &k, &zero, c.data(), &n, 1, 1);
  sync_blas_threads();
  std::vector<double> out;
  for (float x : c) {
    out.push_back(dtype == DType::kF16 ? to_double(to_half(static_cast<double>(x)))
                                       : to_double(to_bfloat16(static_cast<double>(x))));
  }
  return out;
}

// The references a product may match: OpenBLAS's sums can associate differently on one thread
// and on several, and a product runs on one BLAS thread while parallel loops back off
// (sync_blas_threads_for_product()), which depends on the machine's load.
std::vector<std::vector<double>> widened_sgemms(DType dtype, const std::vector<double>& a,
                                                const std::vector<double>& b, int m, int k, int n) {
  return {widened_sgemm(dtype, a, b, m, k, n, 1),
          widened_sgemm(dtype, a, b, m, k, n, max_threads())};
}

// Elements of `got` that differ from the reference they come closest to matching.
int64_t differing_from_nearest(const std::vector<double>& got,
                               const std::vector<std::vector<double>>& references) {
  int64_t best = INT64_MAX;
  for (const auto& expected : references) {
    int64_t differing = static_cast<int64_t>(got.size() != expected.size());
    for (size_t i = 0; i < got.size() && i < expected.size(); ++i)
      differing += got[i] != expected[i];
    best = std::min(best, differing);
  }
  return best;
}

Tensor half_matrix(DType dtype, const Shape& shape, const std::vector<double>& v) {
  return dtype == DType::kF16 ? f16(shape, v) : bf16(shape, v);
}

class LowPrecisionDot : public ::testing::TestWithParam<DType> {};

TEST_P(LowPrecisionDot, BitsOfWideningSgemmAndRoundingOnce) {
  const DType dtype = GetParam();
  const int m = 700, k = 512, n = 600;
  std::mt19937 rng(29);
  // Operand values as the 16-bit type holds them.
  const auto a = half_values(half_matrix(dtype, {m, k}, uniform(rng, int64_t{m} * k)));
  const auto b = half_values(half_matrix(dtype, {k, n}, uniform(rng, int64_t{k} * n)));
  const auto references = widened_sgemms(dtype, a, b, m, k, n);
  const auto& expected = references[0];
  // The test can tell f32 accumulation from double: rounded double sums differ somewhere.
  int64_t double_differs = 0;
  for (int i = 0; i < 40; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += a[size_t(i) * k + p] * b[size_t(p) * n + j];
      const double rounded =
          dtype == DType::kF16 ? to_double(to_half(sum)) : to_double(to_bfloat16(sum));
      double_differs += rounded != expected[size_t(i) * n + j];
    }
  }
  EXPECT_GT(double_differs, 0);
  const Tensor lhs = half_matrix(dtype, {m, k}, a), rhs = half_matrix(dtype, {k, n}, b);
  // Row-major and column-major operands are widened in their layout.
  for (const auto& [l, r] : {std::pair{lhs, rhs}, std::pair{column_major(lhs), rhs},
                             std::pair{lhs, column_major(rhs)}}) {
    const Tensor c = dot(l, r, dtype);
    ASSERT_EQ(c.shape(), (Shape{m, n}));
    EXPECT_EQ(differing_from_nearest(half_values(c), references), 0);
  }
}

TEST_P(LowPrecisionDot, PackedOperandsGiveTheSameBits) {
  const DType dtype = GetParam();
  std::mt19937 rng(7);
  const int m = 96, k = 200, n = 80;
  const auto a = half_values(half_matrix(dtype, {m, k}, uniform(rng, int64_t{m} * k)));
  const auto b = half_values(half_matrix(dtype, {k, n}, uniform(rng, int64_t{k} * n)));
  const auto references = widened_sgemms(dtype, a, b, m, k, n);
  // The lhs as a k x m matrix contracted over its dim 0 from a view with a gap between rows
  // (every other column of a k x 2m matrix): neither layout collapses, so it is packed.
  std::vector<double> wide(size_t(k) * 2 * m, 0.0);
  for (int p = 0; p < k; ++p) {
    for (int i = 0; i < m; ++i) wide[size_t(p) * 2 * m + 2 * i] = a[size_t(i) * k + p];
  }
  const Tensor backing = half_matrix(dtype, {k, 2 * m}, wide);
  const Tensor lhs(backing.storage(), dtype, {k, m}, {2 * m, 2}, backing.offset());
  DotDimensions dims;
  dims.lhs_contracting_dimensions = {0};
  dims.rhs_contracting_dimensions = {0};
  const auto got = half_values(dot_general(lhs, half_matrix(dtype, {k, n}, b), dims, dtype));
  EXPECT_EQ(differing_from_nearest(got, references), 0);
}

INSTANTIATE_TEST_SUITE_P(HalfTypes, LowPrecisionDot, ::testing::Values(DType::kBF16, DType::kF16),
                         [](const auto& info) {
                           return std::string(info.param == DType::kBF16 ? "bf16" : "f16");
                         });

}  // namespace
}  // namespace ndbuf::program
