// Tests of jaxlib's LAPACK targets for general and tridiagonal matrices (geev, gees, gehrd,
// sytrd / hetrd, gtsv): each result is checked by the property that defines it (A v = w v,
// A = Q T Q^H rebuilt here from the reflectors, T x = b), against values worked by hand where
// they are known, and in programs written as JAX exports them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>

#include "program/ops/linalg/linalg.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;
using cd = std::complex<double>;
using Matrix = std::vector<cd>;  // row-major n x n

Tensor c128(const Shape& shape, const std::vector<cd>& v) {
  return tensor_of(DType::kC128, shape, v);
}

template <class T>
Matrix complex_values(const Tensor& t, int64_t offset, int64_t count) {
  const std::vector<T> v = values<T>(t);
  Matrix out;
  for (int64_t k = 0; k < count; ++k) out.push_back(cd(v[offset + k]));
  return out;
}
template <>
Matrix complex_values<std::complex<float>>(const Tensor& t, int64_t offset, int64_t count) {
  const std::vector<std::complex<float>> v = values<std::complex<float>>(t);
  Matrix out;
  for (int64_t k = 0; k < count; ++k) out.push_back(cd(v[offset + k].real(), v[offset + k].imag()));
  return out;
}

Matrix product(const Matrix& a, const Matrix& b, int n) {
  Matrix c(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) c[i * n + j] += a[i * n + k] * b[k * n + j];
  return c;
}

Matrix adjoint(const Matrix& a, int n) {
  Matrix c(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) c[j * n + i] = std::conj(a[i * n + j]);
  return c;
}

Matrix identity(int n) {
  Matrix c(n * n);
  for (int i = 0; i < n; ++i) c[i * n + i] = 1;
  return c;
}

double max_diff(const Matrix& a, const Matrix& b) {
  double d = 0;
  for (size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

// Column j of a row-major n x n matrix.
Matrix column(const Matrix& a, int n, int j) {
  Matrix c;
  for (int i = 0; i < n; ++i) c.push_back(a[i * n + j]);
  return c;
}

// |A v - w v| for each column v of `vectors` and value w (A^H for left eigenvectors), after
// checking that each column has unit norm (to `norm_tolerance`: f32 vectors are rounded).
double eigen_residual(const Matrix& a, const Matrix& w, const Matrix& vectors, int n,
                      double norm_tolerance = 1e-12) {
  double worst = 0;
  for (int j = 0; j < n; ++j) {
    const Matrix v = column(vectors, n, j);
    double norm = 0;
    for (int i = 0; i < n; ++i) {
      cd av = 0;
      for (int k = 0; k < n; ++k) av += a[i * n + k] * v[k];
      worst = std::max(worst, std::abs(av - w[j] * v[i]));
      norm += std::norm(v[i]);
    }
    EXPECT_NEAR(norm, 1, norm_tolerance) << "column " << j << " has unit norm";
  }
  return worst;
}

TEST(ProgramJaxLapackGeneral, EigOfAQuarterTurnAndATriangle) {
  // [[0, -1], [1, 0]] turns by a quarter: its eigenvalues are i and -i.
  const Matrix a = {0, -1, 1, 0};
  const EigFactors f = eig_factor(f64({2, 2, 2}, {0, -1, 1, 0, 2, 1, 0, 3}), true, true);
  ASSERT_EQ(f.values.dtype(), DType::kC128);
  const Matrix w = complex_values<cd>(f.values, 0, 2);
  EXPECT_NEAR(std::abs(w[0] * w[1] - cd(1)), 0, 1e-15);  // i * -i
  EXPECT_NEAR(std::abs(w[0] + w[1]), 0, 1e-15);
  EXPECT_NEAR(std::abs(std::abs(w[0].imag()) - 1), 0, 1e-15);
  EXPECT_LT(eigen_residual(a, w, complex_values<cd>(f.right, 0, 4), 2), 1e-15);
  const Matrix wc = {std::conj(w[0]), std::conj(w[1])};
  EXPECT_LT(eigen_residual(adjoint(a, 2), wc, complex_values<cd>(f.left, 0, 4), 2), 1e-15);
  // [[2, 1], [0, 3]]: the diagonal.
  Matrix w2 = complex_values<cd>(f.values, 2, 2);
  std::sort(w2.begin(), w2.end(), [](cd x, cd y) { return x.real() < y.real(); });
  EXPECT_EQ(w2, (Matrix{2, 3}));
  EXPECT_LT(eigen_residual({2, 1, 0, 3}, complex_values<cd>(f.values, 2, 2),
                           complex_values<cd>(f.right, 4, 4), 2),
            1e-15);
  EXPECT_EQ(values<int32_t>(f.info), (std::vector<int32_t>{0, 0}));
}

TEST(ProgramJaxLapackGeneral, EigOfComplexMatricesAndNonFiniteOnes) {
  // [[1, i], [0, 2i]] is triangular: eigenvalues 1 and 2i.
  const Matrix a = {1, cd(0, 1), 0, cd(0, 2)};
  const EigFactors f = eig_factor(c128({2, 2}, a), false, true);
  Matrix w = complex_values<cd>(f.values, 0, 2);
  std::sort(w.begin(), w.end(), [](cd x, cd y) { return x.imag() < y.imag(); });
  EXPECT_LT(max_diff(w, {1, cd(0, 2)}), 1e-15);
  EXPECT_LT(
      eigen_residual(a, complex_values<cd>(f.values, 0, 2), complex_values<cd>(f.right, 0, 4), 2),
      1e-15);
  EXPECT_EQ(complex_values<cd>(f.left, 0, 4), Matrix(4, 0.0));  // not asked for
  // A matrix holding a NaN is not decomposed: info -4, NaN results; its neighbour is.
  const EigFactors g = eig_factor(f32({2, 1, 1}, {5, NAN}), true, true);
  EXPECT_EQ(values<int32_t>(g.info), (std::vector<int32_t>{0, -4}));
  const std::vector<std::complex<float>> gw = values<std::complex<float>>(g.values);
  EXPECT_EQ(gw[0], std::complex<float>(5, 0));
  EXPECT_TRUE(std::isnan(gw[1].real()) && std::isnan(gw[1].imag()));
}

const char* kGeev =
    R"(func.func @main(%a: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>
})";

TEST(ProgramJaxLapackGeneral, GeevAsJaxExportsIt) {
  // M[i][j] = 4i + j has rank 2: its nonzero eigenvalues are those of [[24, 4], [56, 6]],
  // the roots of x^2 - 30x - 80, that is 15 +- sqrt(305); the other two are 0.
  std::vector<float> m;
  for (int k = 0; k < 16; ++k) m.push_back(static_cast<float>(k));
  const auto r = run(kGeev, {f32({4, 4}, m)});
  std::vector<float> wr = values<float>(r[0]);
  std::sort(wr.begin(), wr.end());
  const double root = std::sqrt(305.0);
  const std::vector<double> want = {15 - root, 0, 0, 15 + root};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(wr[k], want[k], 2e-5) << k;
  for (float wi : values<float>(r[1])) EXPECT_NEAR(wi, 0, 1e-5);
  EXPECT_EQ(values<std::complex<float>>(r[2]), std::vector<std::complex<float>>(16));
  const Matrix mc(m.begin(), m.end());
  Matrix w;
  for (int k = 0; k < 4; ++k) w.push_back(cd(values<float>(r[0])[k], values<float>(r[1])[k]));
  EXPECT_LT(eigen_residual(mc, w, complex_values<std::complex<float>>(r[3], 0, 16), 4, 1e-6), 1e-4);
  EXPECT_EQ(values<int32_t>(r[4]), (std::vector<int32_t>{0}));
}

TEST(ProgramJaxLapackGeneral, SchurRebuildsTheMatrix) {
  // Block triangular, eigenvalues 1 +- 2i and 3: the real form keeps the pair as a 2 x 2 block.
  const Matrix a = {1, 2, 0.5, -2, 1, 0.25, 0, 0, 3};
  const SchurFactors f = schur_factor(f64({3, 3}, {1, 2, 0.5, -2, 1, 0.25, 0, 0, 3}), true);
  const Matrix t = complex_values<double>(f.t, 0, 9), q = complex_values<double>(f.vectors, 0, 9);
  EXPECT_LT(max_diff(product(product(q, t, 3), adjoint(q, 3), 3), a), 1e-14);
  EXPECT_LT(max_diff(product(adjoint(q, 3), q, 3), identity(3)), 1e-14);
  EXPECT_EQ(t[6], cd(0));  // below the first subdiagonal
  Matrix w = complex_values<cd>(f.values, 0, 3);
  std::sort(w.begin(), w.end(), [](cd x, cd y) { return x.imag() < y.imag(); });
  EXPECT_LT(max_diff(w, {cd(1, -2), 3, cd(1, 2)}), 1e-14);
  // A complex matrix's form is upper triangular with the eigenvalues on its diagonal.
  const Matrix b = {cd(0, 1), 2, cd(1, -1), 0};
  const SchurFactors g = schur_factor(c128({2, 2}, b), true);
  const Matrix tb = complex_values<cd>(g.t, 0, 4), qb = complex_values<cd>(g.vectors, 0, 4);
  EXPECT_LT(max_diff(product(product(qb, tb, 2), adjoint(qb, 2), 2), b), 1e-14);
  EXPECT_EQ(tb[2], cd(0));
  EXPECT_EQ(complex_values<cd>(g.values, 0, 2), (Matrix{tb[0], tb[3]}));
  EXPECT_EQ(values<int32_t>(g.info), (std::vector<int32_t>{0}));
}

std::string gees_program(int sort) {
  return R"(func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>) {
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = )" +
         std::to_string(sort) +
         R"( : ui8}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf64>, tensor<3x3xf64>
})";
}

TEST(ProgramJaxLapackGeneral, GeesAsJaxExportsIt) {
  const std::vector<double> a = {4, 1, 0, 1, 3, 1, 0, 1, 2};  // symmetric: T is diagonal
  const auto r = run(gees_program('N'), {f64({3, 3}, a)});
  const Matrix t = complex_values<double>(r[0], 0, 9), q = complex_values<double>(r[1], 0, 9);
  EXPECT_LT(max_diff(product(product(q, t, 3), adjoint(q, 3), 3), Matrix(a.begin(), a.end())),
            1e-14);
  EXPECT_NEAR(std::abs(t[1]) + std::abs(t[2]) + std::abs(t[5]), 0, 1e-14);
  EXPECT_EQ(compile_error(gees_program('S')),
            "2:10: 'stablehlo.custom_call' @lapack_dgees_ffi: sorting the eigenvalues "
            "(sort = 'S') is not supported");
}

// Q = H_1 ... H_m from reflectors H_i = I - tau_i v v^H whose v has a 1 at `first(i)`, zeros
// before it and packed[row][i] below it (rows first(i) + 1 .. n - 1).
Matrix reflectors_product(const Matrix& packed, const Matrix& tau, int n, int offset) {
  Matrix q = identity(n);
  for (int i = 0; i < static_cast<int>(tau.size()); ++i) {
    Matrix v(n);
    v[i + offset] = 1;
    for (int r = i + offset + 1; r < n; ++r) v[r] = packed[r * n + i];
    Matrix h = identity(n);
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) h[r * n + c] -= tau[i] * v[r] * std::conj(v[c]);
    q = product(q, h, n);
  }
  return q;
}

TEST(ProgramJaxLapackGeneral, HessenbergRebuildsTheMatrix) {
  const Matrix a = {cd(1, 1), 2, 3, cd(0, -1), 4, cd(5, 2), 6, 7,
                    cd(8, 1), 9, 1, 2,         3, cd(4, 4), 5, 6};
  const HessenbergFactors f = hessenberg_factor(c128({4, 4}, a), 1, 4);
  const Matrix packed = complex_values<cd>(f.packed, 0, 16);
  Matrix h = packed;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c + 1 < r; ++c) h[r * 4 + c] = 0;
  const Matrix q = reflectors_product(packed, complex_values<cd>(f.tau, 0, 3), 4, 1);
  EXPECT_LT(max_diff(product(product(q, h, 4), adjoint(q, 4), 4), a), 1e-13);
  EXPECT_LT(max_diff(product(adjoint(q, 4), q, 4), identity(4)), 1e-14);
  EXPECT_EQ(values<int32_t>(f.info), (std::vector<int32_t>{0}));
  try {
    hessenberg_factor(c128({4, 4}, a), 0, 4);
    ADD_FAILURE() << "low = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the rows low = 0 and high = 4 must satisfy 1 <= low <= high <= n "
                 "(n = 4)");
  }
}

TEST(ProgramJaxLapackGeneral, TridiagonalRebuildsTheMatrix) {
  // Hermitian, read from its lower triangle (the upper holds 99s that must not be read).
  const Matrix full = {4, cd(1, 1),  2, 0, cd(1, -1), 3, cd(0, 1), 1,
                       2, cd(0, -1), 2, 5, 0,         1, 5,        1};
  Matrix lower_only = full;
  for (int r = 0; r < 4; ++r)
    for (int c = r + 1; c < 4; ++c) lower_only[r * 4 + c] = 99;
  const TridiagonalFactors f = tridiagonal_factor(c128({4, 4}, lower_only), true);
  const std::vector<double> d = values<double>(f.diagonal), e = values<double>(f.offdiagonal);
  Matrix t(16);
  for (int i = 0; i < 4; ++i) t[i * 5] = d[i];
  for (int i = 0; i < 3; ++i) t[(i + 1) * 4 + i] = t[i * 4 + i + 1] = e[i];
  const Matrix q = reflectors_product(complex_values<cd>(f.packed, 0, 16),
                                      complex_values<cd>(f.tau, 0, 3), 4, 1);
  EXPECT_LT(max_diff(product(product(q, t, 4), adjoint(q, 4), 4), full), 1e-13);
  // From the upper triangle: the same trace and Frobenius norm (an orthogonal similarity).
  const std::vector<double> s = {2, 1, 0, 1, 3, 1, 0, 1, 4};
  const TridiagonalFactors g =
      tridiagonal_factor(f32({3, 3}, {2, 1, 0, -9, 3, 1, -9, -9, 4}), false);
  const std::vector<float> gd = values<float>(g.diagonal), ge = values<float>(g.offdiagonal);
  EXPECT_NEAR(gd[0] + gd[1] + gd[2], 9, 1e-5);
  double squares = 0;
  for (double x : s) squares += x * x;
  EXPECT_NEAR(gd[0] * gd[0] + gd[1] * gd[1] + gd[2] * gd[2] + 2 * (ge[0] * ge[0] + ge[1] * ge[1]),
              squares, 1e-4);
}

std::string gtsv_program(const std::string& diagonal_type) {
  return "func.func @main(%dl: " + diagonal_type +
         ", %d: tensor<4xf64>, %du: tensor<4xf64>, %b: tensor<4x2xf64>) -> tensor<4x2xf64> {\n"
         "  %0:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%dl, %d, %du, %b) {mhlo.backend_config "
         "= {}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = "
         "[3], operand_index = 3, operand_tuple_indices = []>]} : (" +
         diagonal_type +
         ", tensor<4xf64>, tensor<4xf64>, tensor<4x2xf64>) -> (tensor<4xf64>, tensor<4xf64>, "
         "tensor<4xf64>, tensor<4x2xf64>, tensor<i32>)\n  return %0#3 : tensor<4x2xf64>\n}\n";
}

TEST(ProgramJaxLapackGeneral, GtsvSolvesTridiagonalSystems) {
  // T has 4 on its diagonal, 1 above and -1 below; dl[0] and du[3] (99) are not read.
  const std::vector<double> dl = {99, -1, -1, -1}, d = {4, 4, 4, 4}, du = {1, 1, 1, 99};
  const std::vector<double> x = {1, 0, 2, 1, -1, 3, 0, 2};  // 4 x 2
  std::vector<double> b(8);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      b[i * 2 + j] = d[i] * x[i * 2 + j];
      if (i > 0) b[i * 2 + j] += dl[i] * x[(i - 1) * 2 + j];
      if (i < 3) b[i * 2 + j] += du[i] * x[(i + 1) * 2 + j];
    }
  }
  const auto r =
      run(gtsv_program("tensor<4xf64>"), {f64({4}, dl), f64({4}, d), f64({4}, du), f64({4, 2}, b)});
  const std::vector<double> got = values<double>(r[0]);
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(got[k], x[k], 1e-14) << k;
  // A zero first pivot with nothing below it to swap in: info names row 1.
  const TridiagonalSolution s = tridiagonal_solve(f32({1, 2}, {0, 0}), f32({1, 2}, {0, 1}),
                                                  f32({1, 2}, {1, 0}), f32({1, 2, 1}, {1, 1}));
  EXPECT_EQ(values<int32_t>(s.info), (std::vector<int32_t>{1}));
  EXPECT_EQ(compile_error(gtsv_program("tensor<3xf64>")),
            "2:10: 'stablehlo.custom_call' @lapack_dgtsv_ffi: operand 1 (a diagonal) must be "
            "tensor<4xf64> to match tensor<4x2xf64>, not tensor<3xf64>");
}

}  // namespace
}  // namespace ndbuf::program
