// Tests of JAX's CPU LAPACK targets (lapack_<t><routine>_ffi): values worked by hand, info
// outputs, attributes, and programs written as JAX exports them.
#include <gtest/gtest.h>

#include <cmath>

#include "program/ops/linalg/linalg.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

TEST(ProgramJaxLapack, CholeskyByHandAndInfo) {
  // [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt(2)]].
  const CholeskyFactor f = cholesky_factor(f64({2, 2}, {4, 2, 2, 3}), true);
  const std::vector<double> l = values<double>(f.factor);
  EXPECT_DOUBLE_EQ(l[0], 2);
  EXPECT_DOUBLE_EQ(l[2], 1);
  EXPECT_DOUBLE_EQ(l[3], std::sqrt(2.0));
  EXPECT_EQ(l[1], 2);  // the other triangle keeps the operand's value
  EXPECT_EQ(values<int32_t>(f.info), (std::vector<int32_t>{0}));
  // [[1, 2], [2, 1]] is not positive definite: the minor of order 2 fails.
  const CholeskyFactor g = cholesky_factor(f32({2, 2, 2}, {1, 2, 2, 1, 9, 0, 0, 4}), false);
  EXPECT_EQ(values<int32_t>(g.info), (std::vector<int32_t>{2, 0}));
  EXPECT_FLOAT_EQ(values<float>(g.factor)[4], 3);
  EXPECT_FLOAT_EQ(values<float>(g.factor)[7], 2);
}

const char* kCholesky =
    R"(func.func @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<i32>
})";

TEST(ProgramJaxLapack, PotrfAsJaxExportsIt) {
  // A = L L^T for L = [[1, 0, 0], [2, 3, 0], [-1, 1, 2]].
  const std::vector<float> a = {1, 2, -1, 2, 13, 1, -1, 1, 6};
  const auto r = run(kCholesky, {f32({3, 3}, a)});
  const std::vector<float> l = values<float>(r[0]);
  const std::vector<float> want = {1, 0, 0, 2, 3, 0, -1, 1, 2};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j <= i; ++j) EXPECT_NEAR(l[i * 3 + j], want[i * 3 + j], 1e-6);
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{0}));
  std::string wrong = kCholesky;
  wrong.replace(wrong.find("uplo = 76"), 9, "uplo = 70");
  EXPECT_EQ(compile_error(wrong),
            "2:10: 'stablehlo.custom_call' @lapack_spotrf_ffi: attribute 'uplo' must be the code "
            "of one of the letters LU");
  std::string f64_name = kCholesky;
  f64_name.replace(f64_name.find("spotrf"), 6, "dpotrf");
  EXPECT_EQ(compile_error(f64_name),
            "2:10: 'stablehlo.custom_call' @lapack_dpotrf_ffi: operand 1 must be f64 matrices "
            "(rank 2 or more), not tensor<3x3xf32>");
}

TEST(ProgramJaxLapack, GetrfInfoNamesTheZeroPivot) {
  const LuFactors f = lu_factor(f64({2, 2, 2}, {1, 2, 2, 4, 0, 1, 1, 0}));
  EXPECT_EQ(values<int32_t>(f.info), (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(values<int32_t>(f.pivots), (std::vector<int32_t>{2, 2, 2, 2}));
}

TEST(ProgramJaxLapack, FullQAndFullSvd) {
  const Tensor a = f64({3, 2}, {1, 2, 3, 4, 5, 7});
  const QrFactors f = qr_factor(a);
  // JAX pads the reflectors to 3 x 3 for a complete Q.
  std::vector<double> padded(9, 0.0);
  const std::vector<double> p = values<double>(f.packed);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) padded[i * 3 + j] = p[i * 2 + j];
  const std::vector<double> q = values<double>(qr_q(f64({3, 3}, padded), f.tau, 3));
  const std::vector<double> q2 = values<double>(qr_q(f.packed, f.tau));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      double dot = 0;
      for (int r = 0; r < 3; ++r) dot += q[r * 3 + i] * q[r * 3 + j];
      EXPECT_NEAR(dot, i == j ? 1 : 0, 1e-12);
    }
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(q[i * 3 + j], q2[i * 2 + j], 1e-12);
  }
  EXPECT_THROW(qr_q(f.packed, f.tau, 3), Error);  // only 2 columns of reflectors to extend
  const SvdFactors s = svd_factor(a, true);
  EXPECT_EQ(s.u.shape(), (Shape{3, 3}));
  EXPECT_EQ(s.vt.shape(), (Shape{2, 2}));
  const std::vector<double> u = values<double>(s.u), vt = values<double>(s.vt);
  const std::vector<double> sv = values<double>(s.s);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      double x = 0;
      for (int r = 0; r < 2; ++r) x += u[i * 3 + r] * sv[r] * vt[r * 2 + j];
      EXPECT_NEAR(x, values<double>(a)[i * 2 + j], 1e-12);
    }
  }
  EXPECT_EQ(svd_factor(f64({2, 0}, {}), true).u.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<double>(svd_factor(f64({2, 0}, {}), true).u), (std::vector<double>{1, 0, 0, 1}));
}

TEST(ProgramJaxLapack, SvdAndEighPrograms) {
  const std::string svd = R"(func.func @main(%a: tensor<2x2xf64>) -> (tensor<2xf64>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<i32>)
  return %0#1, %0#4 : tensor<2xf64>, tensor<i32>
})";
  const auto r = run(svd, {f64({2, 2}, {0, 2, -3, 0})});
  EXPECT_EQ(values<double>(r[0]), (std::vector<double>{3, 2}));
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{0}));
  const std::string eigh = R"(func.func @main(%a: tensor<2x2xcomplex<f64>>) -> tensor<2xf64> {
  %0:3 = stablehlo.custom_call @lapack_zheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<2x2xcomplex<f64>>) -> (tensor<2x2xcomplex<f64>>, tensor<2xf64>, tensor<i32>)
  return %0#1 : tensor<2xf64>
})";
  // [[2, i], [-i, 2]] (upper triangle read; the lower one is garbage): eigenvalues 1 and 3.
  using cd = std::complex<double>;
  const Tensor h = tensor_of<cd>(DType::kC128, {2, 2}, {cd(2, 0), cd(0, 1), cd(50, 50), cd(2, 0)});
  const std::vector<double> w = values<double>(run(eigh, {h})[0]);
  EXPECT_NEAR(w[0], 1, 1e-12);
  EXPECT_NEAR(w[1], 3, 1e-12);
  EXPECT_NE(compile_error(R"(func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.custom_call @lapack_sorgqr_ffi(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
})"),
            "");
}

TEST(ProgramJaxLapack, QrAsJaxExportsItAndSvdWithoutVectors) {
  // jnp.linalg.qr(mode="complete") of a 3 x 2 matrix: geqrf, pad the reflectors to 3 x 3,
  // orgqr to the complete Q.
  const std::string qr =
      R"(func.func @main(%a: tensor<3x2xf64>) -> (tensor<3x3xf64>, tensor<3x2xf64>) {
  %0:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%a) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>)
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %1 = stablehlo.pad %0#0, %z, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<3x2xf64>, tensor<f64>) -> tensor<3x3xf64>
  %2 = stablehlo.custom_call @lapack_dorgqr_ffi(%1, %0#1) : (tensor<3x3xf64>, tensor<2xf64>) -> tensor<3x3xf64>
  return %2, %0#0 : tensor<3x3xf64>, tensor<3x2xf64>
})";
  const std::vector<double> a = {1, 2, 3, 4, 5, 7};
  const auto r = run(qr, {f64({3, 2}, a)});
  const std::vector<double> q = values<double>(r[0]), packed = values<double>(r[1]);
  // Q R == A with R the upper triangle of the packed factor.
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      double x = 0;
      for (int k = 0; k <= j; ++k) x += q[i * 3 + k] * packed[k * 2 + j];
      EXPECT_NEAR(x, a[i * 2 + j], 1e-12);
    }
  }
  const std::string svd = R"(func.func @main(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<i32>)
  return %0#1 : tensor<2xf32>
})";
  // Singular values of [[3, 0, 0], [0, 0, -4]]: 4 and 3.
  const std::vector<float> sv = values<float>(run(svd, {f32({2, 3}, {3, 0, 0, 0, 0, -4})})[0]);
  EXPECT_NEAR(sv[0], 4, 1e-6);
  EXPECT_NEAR(sv[1], 3, 1e-6);
}

// JAX's trsm call: a and b (and, from older JAX, alpha), b aliased to the result.
std::string trsm_program(const std::string& flags, const std::string& a_type,
                         const std::string& b_type, bool alpha) {
  const std::string operands = alpha ? "%a, %b, %alpha" : "%a, %b";
  const std::string types = a_type + ", " + b_type + (alpha ? ", tensor<f32>" : "");
  return "func.func @main(%a: " + a_type + ", %b: " + b_type +
         (alpha ? ", %alpha: tensor<f32>" : "") + ") -> " + b_type +
         " {\n  %0 = stablehlo.custom_call @lapack_strsm_ffi(" + operands +
         ") {mhlo.backend_config = {" + flags +
         "}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>" +
         (alpha ? ", dense<> : tensor<0xindex>" : "") +
         "], output_operand_aliases = [#stablehlo.output_operand_alias<"
         "output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], "
         "result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (" +
         types + ") -> " + b_type + "\n  return %0 : " + b_type + "\n}\n";
}

std::string trsm_flags(char side, char uplo, char trans, char diag) {
  return "diag = " + std::to_string(diag) + " : ui8, side = " + std::to_string(side) +
         " : ui8, trans_x = " + std::to_string(trans) + " : ui8, uplo = " + std::to_string(uplo) +
         " : ui8";
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5) << k;
}

TEST(ProgramJaxLapack, TrsmSolvesEverySideAndTranspose) {
  // L = [[2, 0, 0], [1, 1, 0], [3, -1, 4]] (9s in the unread upper triangle).
  const Tensor l = f32({3, 3}, {2, 9, 9, 1, 1, 9, 3, -1, 4});
  const std::string a33 = "tensor<3x3xf32>", b32 = "tensor<3x2xf32>";
  const std::string left_lower = trsm_flags('L', 'L', 'N', 'N');
  // L x = b for x = [[1, 2], [3, -1], [0, 1]].
  const Tensor b = f32({3, 2}, {2, 4, 4, 1, 0, 11});
  expect_near_all(values<float>(run(trsm_program(left_lower, a33, b32, false), {l, b})[0]),
                  {1, 2, 3, -1, 0, 1});
  // With alpha = 2 (older JAX's third operand) the solution doubles.
  expect_near_all(
      values<float>(run(trsm_program(left_lower, a33, b32, true), {l, b, scalar_f32(2)})[0]),
      {2, 4, 6, -2, 0, 2});
  // L^T x = b for x = [[1, 0], [1, 1], [1, 2]].
  expect_near_all(values<float>(run(trsm_program(trsm_flags('L', 'L', 'T', 'N'), a33, b32, false),
                                    {l, f32({3, 2}, {6, 7, 0, -1, 4, 8})})[0]),
                  {1, 0, 1, 1, 1, 2});
  // x A = b on the right, A = [[2, 0], [1, 1]], x = [[1, 1], [2, 0], [0, 3]]; with a unit
  // diagonal A reads as [[1, 0], [1, 1]] and x as [[2, 1], [4, 0], [0, 3]].
  const Tensor a = f32({2, 2}, {2, 0, 1, 1});
  const Tensor rb = f32({3, 2}, {3, 1, 4, 0, 3, 3});
  const std::string a22 = "tensor<2x2xf32>";
  expect_near_all(
      values<float>(run(trsm_program(trsm_flags('R', 'L', 'N', 'N'), a22, b32, false), {a, rb})[0]),
      {1, 1, 2, 0, 0, 3});
  expect_near_all(
      values<float>(run(trsm_program(trsm_flags('R', 'L', 'N', 'U'), a22, b32, false), {a, rb})[0]),
      {2, 1, 4, 0, 0, 3});
}

TEST(ProgramJaxLapack, TrsmSiteErrors) {
  EXPECT_EQ(compile_error(trsm_program("side = 76 : ui8, uplo = 76 : ui8, trans_x = 78 : ui8",
                                       "tensor<3x3xf32>", "tensor<3x2xf32>", false)),
            "2:8: 'stablehlo.custom_call' @lapack_strsm_ffi: needs the attribute 'diag'");
  EXPECT_EQ(compile_error(trsm_program(trsm_flags('L', 'L', 'X', 'N'), "tensor<3x3xf32>",
                                       "tensor<3x2xf32>", false)),
            "2:8: 'stablehlo.custom_call' @lapack_strsm_ffi: attribute 'trans_x' must be the code "
            "of one of the letters NTC");
  EXPECT_EQ(compile_error(trsm_program(trsm_flags('R', 'L', 'N', 'N'), "tensor<3x3xf32>",
                                       "tensor<3x2xf32>", false)),
            "2:8: 'stablehlo.custom_call' @lapack_strsm_ffi: needs a's size to match the columns "
            "of b, not tensor<3x3xf32> and tensor<3x2xf32>");
}

}  // namespace
}  // namespace ndbuf::program
