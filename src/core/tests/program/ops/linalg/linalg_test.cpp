// Tests of the LAPACK kernels (ops/linalg/linalg.hpp) and their custom-call targets: each
// factorisation is checked by rebuilding the operand from its factors and by the properties
// of the factors, plus small cases worked by hand.
#include "program/ops/linalg/linalg.hpp"

#include <gtest/gtest.h>

#include <complex>

#include "tests/program/kernel_tensors.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;
using cd = std::complex<double>;

Tensor c128(const Shape& shape, const std::vector<cd>& v) {
  return tensor_of(DType::kC128, shape, v);
}

// Row-major m x n products and helpers over std::complex<double>.
using Mat = std::vector<cd>;
Mat matmul(const Mat& a, const Mat& b, int m, int k, int n) {
  Mat c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < k; ++l) c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}
Mat adjoint(const Mat& a, int m, int n) {
  Mat t(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) t[j * m + i] = std::conj(a[i * n + j]);
  return t;
}
double max_diff(const Mat& a, const Mat& b) {
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}
Mat identity(int n) {
  Mat e(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}
template <class T>
Mat as_mat(const Tensor& t, int64_t offset, int64_t count) {
  const std::vector<T> v = values<T>(t);
  Mat out;
  for (int64_t k = 0; k < count; ++k) out.push_back(cd(v[offset + k]));
  return out;
}

TEST(ProgramLinalg, QrOfATallBatchRebuildsTheOperand) {
  // Two 3 x 2 matrices.
  const std::vector<double> a = {1, 2, 3, 4, 5, 6, 2, -1, 0, 3, 1, 1};
  const Tensor x = f64({2, 3, 2}, a);
  const QrFactors f = qr_factor(x);
  ASSERT_EQ(f.packed.shape(), (Shape{2, 3, 2}));
  ASSERT_EQ(f.tau.shape(), (Shape{2, 2}));
  const Tensor q = qr_q(f.packed, f.tau);
  ASSERT_EQ(q.shape(), (Shape{2, 3, 2}));
  for (int e = 0; e < 2; ++e) {
    const Mat qm = as_mat<double>(q, e * 6, 6);
    Mat r = as_mat<double>(f.packed, e * 6, 4);  // first two rows
    r[2] = 0;                                    // below the diagonal
    EXPECT_LT(max_diff(matmul(qm, r, 3, 2, 2), as_mat<double>(x, e * 6, 6)), 1e-12);
    EXPECT_LT(max_diff(matmul(adjoint(qm, 3, 2), qm, 2, 3, 2), identity(2)), 1e-12);
  }
  // Householder QR of [[3], [4]]: R = -5 (LAPACK's sign), tau = 1 + 3/5.
  const QrFactors g = qr_factor(f64({2, 1}, {3, 4}));
  EXPECT_NEAR(values<double>(g.packed)[0], -5, 1e-14);
  EXPECT_NEAR(values<double>(g.tau)[0], 1.6, 1e-14);
}

TEST(ProgramLinalg, QrOfWideComplexAndF32) {
  const Tensor x = c128({2, 3}, {cd(1, 1), cd(0, 2), cd(3, 0), cd(-1, 0), cd(2, -1), cd(0, 1)});
  const QrFactors f = qr_factor(x);
  const Tensor q = qr_q(f.packed, f.tau);
  ASSERT_EQ(q.shape(), (Shape{2, 2}));
  Mat r = as_mat<cd>(f.packed, 0, 6);
  r[3] = 0;
  const Mat qm = as_mat<cd>(q, 0, 4);
  EXPECT_LT(max_diff(matmul(qm, r, 2, 2, 3), as_mat<cd>(x, 0, 6)), 1e-12);
  const Tensor y = f32({2, 2}, {4, 1, 2, 3});
  const Tensor q32 = qr_q(qr_factor(y).packed, qr_factor(y).tau);
  EXPECT_EQ(q32.dtype(), DType::kF32);
  const Mat qy = as_mat<float>(q32, 0, 4);
  EXPECT_LT(max_diff(matmul(adjoint(qy, 2, 2), qy, 2, 2, 2), identity(2)), 1e-6);
}

TEST(ProgramLinalg, LuByHandAndReconstruction) {
  // [[1, 2], [3, 4]]: swap rows 1 and 2, L = [[1, 0], [1/3, 1]], U = [[3, 4], [0, 2/3]].
  const LuFactors f = lu_factor(f64({2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(values<int32_t>(f.pivots), (std::vector<int32_t>{2, 2}));
  const std::vector<double> lu = values<double>(f.lu);
  EXPECT_DOUBLE_EQ(lu[0], 3);
  EXPECT_DOUBLE_EQ(lu[1], 4);
  EXPECT_NEAR(lu[2], 1.0 / 3, 1e-15);
  EXPECT_NEAR(lu[3], 2.0 / 3, 1e-15);
  // A singular matrix factors without error, with a zero pivot.
  const LuFactors s = lu_factor(f32({2, 2}, {1, 2, 2, 4}));
  EXPECT_EQ(values<float>(s.lu)[3], 0.0f);
  EXPECT_THROW(lu_factor(i32({2, 2}, {1, 2, 3, 4})), Error);
  EXPECT_THROW(lu_factor(f64({4}, {1, 2, 3, 4})), Error);
}

TEST(ProgramLinalg, SvdByHandAndReconstruction) {
  const SvdFactors d = svd_factor(f64({2, 2}, {0, 2, -3, 0}));
  EXPECT_EQ(values<double>(d.s), (std::vector<double>{3, 2}));
  const Tensor x = c128({3, 2}, {cd(1, 0), cd(2, 1), cd(0, -1), cd(3, 0), cd(1, 1), cd(0, 0)});
  const SvdFactors f = svd_factor(x);
  ASSERT_EQ(f.s.dtype(), DType::kF64);
  ASSERT_EQ(f.u.shape(), (Shape{3, 2}));
  ASSERT_EQ(f.vt.shape(), (Shape{2, 2}));
  const std::vector<double> s = values<double>(f.s);
  EXPECT_GE(s[0], s[1]);
  Mat us = as_mat<cd>(f.u, 0, 6);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) us[i * 2 + j] *= s[j];
  EXPECT_LT(max_diff(matmul(us, as_mat<cd>(f.vt, 0, 4), 3, 2, 2), as_mat<cd>(x, 0, 6)), 1e-12);
  EXPECT_EQ(svd_factor(tensor_of<std::complex<float>>(DType::kC64, {1, 1}, {{3, 4}})).s.dtype(),
            DType::kF32);
  EXPECT_NEAR(
      values<float>(svd_factor(tensor_of<std::complex<float>>(DType::kC64, {1, 1}, {{3, 4}})).s)[0],
      5.0f, 1e-6);
}

TEST(ProgramLinalg, EighByHandBatchedAndHermitian) {
  // [[2, 1], [1, 2]] has eigenvalues 1 and 3; the second matrix is diagonal.
  const EighFactors f = eigh_factor(f32({2, 2, 2}, {2, 1, 1, 2, 5, 0, 0, -1}), true);
  const std::vector<float> w = values<float>(f.values);
  EXPECT_NEAR(w[0], 1, 1e-6);
  EXPECT_NEAR(w[1], 3, 1e-6);
  EXPECT_NEAR(w[2], -1, 1e-6);
  EXPECT_NEAR(w[3], 5, 1e-6);
  // Only the lower triangle is read: the upper one here is garbage.
  const Tensor h = c128({2, 2}, {cd(2, 0), cd(99, 99), cd(0, 1), cd(2, 0)});
  const EighFactors g = eigh_factor(h, true);
  const Mat hm = {cd(2, 0), cd(0, -1), cd(0, 1), cd(2, 0)};
  const Mat v = as_mat<cd>(g.vectors, 0, 4);
  const std::vector<double> gw = values<double>(g.values);
  Mat vw = v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) vw[i * 2 + j] *= gw[j];
  EXPECT_LT(max_diff(matmul(hm, v, 2, 2, 2), vw), 1e-12);
  EXPECT_THROW(eigh_factor(f64({2, 3}, {1, 2, 3, 4, 5, 6}), true), Error);
}

TEST(ProgramLinalg, EmptyMatrices) {
  const QrFactors f = qr_factor(f64({3, 0}, {}));
  EXPECT_EQ(f.tau.shape(), (Shape{0}));
  EXPECT_EQ(qr_q(f.packed, f.tau).shape(), (Shape{3, 0}));
  EXPECT_EQ(svd_factor(f64({0, 2}, {})).vt.shape(), (Shape{0, 2}));
  EXPECT_EQ(eigh_factor(f64({4, 0, 0}, {}), true).values.shape(), (Shape{4, 0}));
}

TEST(ProgramLinalg, TargetsCheckTypesAtCompileTime) {
  const std::string text = R"(func.func @main(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0:2 = stablehlo.custom_call @geqrf(%a) {api_version = 4 : i32, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>)
  %1 = stablehlo.custom_call @orgqr(%0#0, %0#1) {api_version = 4 : i32} : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
})";
  const auto q = run(text, {f32({3, 2}, {1, 0, 0, 1, 0, 0})})[0];
  const std::vector<float> qv = values<float>(q);
  EXPECT_NEAR(std::abs(qv[0]), 1, 1e-6);
  EXPECT_NEAR(std::abs(qv[3]), 1, 1e-6);
  EXPECT_NEAR(qv[1], 0, 1e-6);
  EXPECT_EQ(compile_error(R"(func.func @main(%a: tensor<3x2xf32>) -> tensor<2xf64> {
  %0:3 = stablehlo.custom_call @svd(%a) : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf64>, tensor<2x2xf32>)
  return %0#1 : tensor<2xf64>
})"),
            "2:10: 'stablehlo.custom_call' @svd: result 2 should be tensor<2xf32>, not "
            "tensor<2xf64>");
  EXPECT_EQ(compile_error(R"(func.func @main(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0:2 = stablehlo.custom_call @lu(%a) : (tensor<3xi32>) -> (tensor<3xi32>, tensor<1xi32>)
  return %0#0 : tensor<3xi32>
})"),
            "2:10: 'stablehlo.custom_call' @lu: operand 1 must have element type f32, f64, "
            "complex<f32> or complex<f64>, not tensor<3xi32>");
}

}  // namespace
}  // namespace ndbuf::program
