// cholesky and triangular_solve against hand-worked factors and solutions.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "program/ops/linalg/lapack_single.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::f32;
using testing::f64;
using testing::run;
using testing::tensor_of;
using testing::values;
using Z = std::complex<double>;

std::string cholesky_program(const std::string& type, bool lower) {
  return "func.func @main(%a: " + type + ") -> " + type +
         " {\n  %r = \"stablehlo.cholesky\"(%a) {lower = " + (lower ? "true" : "false") + "} : (" +
         type + ") -> " + type + "\n  return %r : " + type + "\n}\n";
}

TEST(ProgramTriangular, CholeskyLowerAndUpper) {
  // A = L L^T with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]].
  const Tensor a = f64({3, 3}, {4, 12, -16, 12, 37, -43, -16, -43, 98});
  EXPECT_EQ(values<double>(run(cholesky_program("tensor<3x3xf64>", true), {a})[0]),
            (std::vector<double>{2, 0, 0, 6, 1, 0, -8, 5, 3}));
  EXPECT_EQ(values<double>(run(cholesky_program("tensor<3x3xf64>", false), {a})[0]),
            (std::vector<double>{2, 6, -8, 0, 1, 5, 0, 0, 3}));
  // The other triangle is never read: garbage there changes nothing.
  const Tensor upper_garbage = f64({3, 3}, {4, 99, 99, 12, 37, 99, -16, -43, 98});
  EXPECT_EQ(values<double>(run(cholesky_program("tensor<3x3xf64>", true), {upper_garbage})[0]),
            (std::vector<double>{2, 0, 0, 6, 1, 0, -8, 5, 3}));
}

// Row-major, column-major (an R matrix, factored as it lies) and strided operands, both
// factors: only the factor's triangle is read (NaN elsewhere changes nothing) and the other
// triangle of the result is zero.
TEST(ProgramTriangular, CholeskyOfEveryLayoutReadsOnlyItsTriangle) {
  const double nan = std::nan("");
  const std::vector<double> lower_only = {4, nan, nan, 12, 37, nan, -16, -43, 98};
  const std::vector<double> upper_only = {4, 12, -16, nan, 37, -43, nan, nan, 98};
  for (const bool lower : {true, false}) {
    const Tensor dense = f64({3, 3}, lower ? lower_only : upper_only);
    // Every other column of a 3 x 6 matrix holding the same values.
    std::vector<double> wide(18, nan);
    for (size_t k = 0; k < 9; ++k)
      wide[(k / 3) * 6 + (k % 3) * 2] = (lower ? lower_only : upper_only)[k];
    const Tensor wide_tensor = f64({3, 6}, wide);
    const Tensor strided(wide_tensor.storage(), DType::kF64, {3, 3}, {6, 2});
    const std::vector<double> expected = lower ? std::vector<double>{2, 0, 0, 6, 1, 0, -8, 5, 3}
                                               : std::vector<double>{2, 6, -8, 0, 1, 5, 0, 0, 3};
    for (const Tensor& a : {dense, copy_to(dense, Device{}, Order::kColumnMajor), strided}) {
      SCOPED_TRACE(std::string(lower ? "lower " : "upper ") +
                   (a.is_contiguous(Order::kRowMajor)      ? "row-major"
                    : a.is_contiguous(Order::kColumnMajor) ? "column-major"
                                                           : "strided"));
      EXPECT_EQ(values<double>(run(cholesky_program("tensor<3x3xf64>", lower), {a})[0]), expected);
    }
  }
}

TEST(ProgramTriangular, CholeskyBatchedF32AndNotPositiveDefinite) {
  // Batch of two: diag(4, 9) and [[1, 2], [2, 1]] (eigenvalue -1: NaNs, no error).
  const auto r =
      run(cholesky_program("tensor<2x2x2xf32>", true), {f32({2, 2, 2}, {4, 0, 0, 9, 1, 2, 2, 1})});
  const auto v = values<float>(r[0]);
  EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 4), (std::vector<float>{2, 0, 0, 3}));
  for (int k = 4; k < 8; ++k) EXPECT_TRUE(std::isnan(v[k])) << k;
}

TEST(ProgramTriangular, CholeskyComplexHermitian) {
  // A = [[4, 2i], [-2i, 5]] = L L^H with L = [[2, 0], [-i, 2]].
  const Tensor a = tensor_of<Z>(DType::kC128, {2, 2}, {4, Z(0, 2), Z(0, -2), 5});
  EXPECT_EQ(values<Z>(run(cholesky_program("tensor<2x2xcomplex<f64>>", true), {a})[0]),
            (std::vector<Z>{2, 0, Z(0, -1), 2}));
  EXPECT_EQ(values<Z>(run(cholesky_program("tensor<2x2xcomplex<f64>>", false), {a})[0]),
            (std::vector<Z>{2, Z(0, 1), 0, 2}));
}

std::string solve_program(const std::string& a, const std::string& b, const std::string& flags,
                          const std::string& transpose) {
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + b +
         " {\n  %r = \"stablehlo.triangular_solve\"(%a, %b) {" + flags +
         ", transpose_a = #stablehlo<transpose " + transpose + ">} : (" + a + ", " + b + ") -> " +
         b + "\n  return %r : " + b + "\n}\n";
}

std::vector<double> solve(const std::string& flags, const std::string& transpose) {
  const Tensor a = f64({2, 2}, {2, 0, 1, 4});
  const Tensor b = f64({2, 2}, {2, 4, 5, 6});
  return values<double>(
      run(solve_program("tensor<2x2xf64>", "tensor<2x2xf64>", flags, transpose), {a, b})[0]);
}

TEST(ProgramTriangular, TriangularSolveSidesTrianglesAndDiagonals) {
  const std::string lower = "left_side = true, lower = true, unit_diagonal = false";
  EXPECT_EQ(solve(lower, "NO_TRANSPOSE"), (std::vector<double>{1, 2, 1, 1}));
  EXPECT_EQ(solve(lower, "TRANSPOSE"), (std::vector<double>{0.375, 1.25, 1.25, 1.5}));
  EXPECT_EQ(solve(lower, "ADJOINT"), (std::vector<double>{0.375, 1.25, 1.25, 1.5}));
  EXPECT_EQ(solve("left_side = false, lower = true, unit_diagonal = false", "NO_TRANSPOSE"),
            (std::vector<double>{0.5, 1, 1.75, 1.5}));
  EXPECT_EQ(solve("left_side = true, lower = true, unit_diagonal = true", "NO_TRANSPOSE"),
            (std::vector<double>{2, 4, 3, 2}));
  // The upper triangle of this a is its diagonal.
  EXPECT_EQ(solve("left_side = true, lower = false, unit_diagonal = false", "NO_TRANSPOSE"),
            (std::vector<double>{1, 2, 1.25, 1.5}));
}

TEST(ProgramTriangular, TriangularSolveOfOperandsInEitherLayout) {
  // A = [[2, 0], [1, 4]] (lower), B = [[2, 4], [5, 6]]: A X = B gives X = [[1, 2], [1, 1]];
  // X A = B (right side) gives X = [[0.5, 1], [1.75, 1.5]].
  const Tensor a = f64({2, 2}, {2, 0, 1, 4});
  const Tensor b = f64({2, 2}, {2, 4, 5, 6});
  const std::string t = "tensor<2x2xf64>";
  for (const Tensor& la : {a, testing::column_major(a)}) {
    for (const Tensor& lb : {b, testing::column_major(b)}) {
      const auto left =
          run(solve_program(t, t, "left_side = true, lower = true, unit_diagonal = false",
                            "NO_TRANSPOSE"),
              {la, lb});
      EXPECT_EQ(values<double>(left[0]), (std::vector<double>{1, 2, 1, 1}));
      const auto right =
          run(solve_program(t, t, "left_side = false, lower = true, unit_diagonal = false",
                            "NO_TRANSPOSE"),
              {la, lb});
      EXPECT_EQ(values<double>(right[0]), (std::vector<double>{0.5, 1, 1.75, 1.5}));
    }
  }
}

TEST(ProgramTriangular, TriangularSolveComplexTransposeAndAdjointDiffer) {
  const Tensor a = tensor_of<Z>(DType::kC128, {2, 2}, {2, 0, Z(0, 1), 1});
  const Tensor b = tensor_of<Z>(DType::kC128, {2, 1}, {2, 1});
  const std::string flags = "left_side = true, lower = true, unit_diagonal = false";
  const auto text = [&](const std::string& t) {
    return solve_program("tensor<2x2xcomplex<f64>>", "tensor<2x1xcomplex<f64>>", flags, t);
  };
  EXPECT_EQ(values<Z>(run(text("ADJOINT"), {a, b})[0]), (std::vector<Z>{Z(1, 0.5), 1}));
  EXPECT_EQ(values<Z>(run(text("TRANSPOSE"), {a, b})[0]), (std::vector<Z>{Z(1, -0.5), 1}));
}

TEST(ProgramTriangular, TriangularSolveBatchedF32) {
  const Tensor a = f32({2, 2, 2}, {2, 0, 1, 4, 1, 0, 0, 2});
  const Tensor b = f32({2, 2, 1}, {2, 5, 3, 4});
  const auto r =
      run(solve_program("tensor<2x2x2xf32>", "tensor<2x2x1xf32>",
                        "left_side = true, lower = true, unit_diagonal = false", "NO_TRANSPOSE"),
          {a, b});
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{1, 1, 3, 2}));
}

// f32 / c64 run LAPACK's single-precision routines where the linked libraries have them, the
// double-precision ones otherwise: both give the hand-worked factors and solutions (exact in
// f32), whatever the input layout and whatever the unread triangle holds.
TEST(ProgramTriangular, SinglePrecisionRoutinesAndTheWideningFallbackAgree) {
  using C = std::complex<float>;
  for (const bool native : {true, false}) {
    use_single_precision_lapack(native);
    const Tensor a = f32({3, 3}, {4, 99, 99, 12, 37, 99, -16, -43, 98});
    for (const Tensor& input : {a, testing::column_major(a)}) {
      EXPECT_EQ(values<float>(run(cholesky_program("tensor<3x3xf32>", true), {input})[0]),
                (std::vector<float>{2, 0, 0, 6, 1, 0, -8, 5, 3}))
          << native;
    }
    const Tensor upper = f32({3, 3}, {4, 12, -16, 99, 37, -43, 99, 99, 98});
    for (const Tensor& input : {upper, testing::column_major(upper)}) {
      EXPECT_EQ(values<float>(run(cholesky_program("tensor<3x3xf32>", false), {input})[0]),
                (std::vector<float>{2, 6, -8, 0, 1, 5, 0, 0, 3}))
          << native;
    }
    // Not positive definite (eigenvalue -1), arriving column-major: NaNs, no error.
    const auto failed = values<float>(run(cholesky_program("tensor<2x2xf32>", true),
                                          {testing::column_major(f32({2, 2}, {1, 2, 2, 1}))})[0]);
    for (float v : failed) EXPECT_TRUE(std::isnan(v)) << native;
    const Tensor h = tensor_of<C>(DType::kC64, {2, 2}, {4, C(0, 2), C(0, -2), 5});
    EXPECT_EQ(values<C>(run(cholesky_program("tensor<2x2xcomplex<f32>>", true), {h})[0]),
              (std::vector<C>{2, 0, C(0, -1), 2}));
    const std::string flags = "left_side = true, lower = true, unit_diagonal = false";
    const auto solved =
        run(solve_program("tensor<2x2xf32>", "tensor<2x2xf32>", flags, "TRANSPOSE"),
            {f32({2, 2}, {2, 0, 1, 4}), testing::column_major(f32({2, 2}, {2, 4, 5, 6}))});
    EXPECT_EQ(values<float>(solved[0]), (std::vector<float>{0.375, 1.25, 1.25, 1.5}));
    const auto adjoint =
        run(solve_program("tensor<2x2xcomplex<f32>>", "tensor<2x1xcomplex<f32>>", flags, "ADJOINT"),
            {tensor_of<C>(DType::kC64, {2, 2}, {2, 0, C(0, 1), 1}),
             tensor_of<C>(DType::kC64, {2, 1}, {2, 1})});
    EXPECT_EQ(values<C>(adjoint[0]), (std::vector<C>{C(1, 0.5), 1}));
  }
  use_single_precision_lapack(true);
}

TEST(ProgramTriangular, CompileErrors) {
  EXPECT_EQ(compile_error(cholesky_program("tensor<2x3xf32>", true)),
            "2:8: 'stablehlo.cholesky' needs square matrices in its last two dimensions, not "
            "tensor<2x3xf32>");
  EXPECT_EQ(compile_error(cholesky_program("tensor<2x2xi32>", true)),
            "2:8: 'stablehlo.cholesky' operand tensor<2x2xi32> must have a float or complex "
            "element type");
  const std::string flags = "left_side = true, lower = true, unit_diagonal = false";
  EXPECT_EQ(
      compile_error(solve_program("tensor<3x3xf32>", "tensor<2x1xf32>", flags, "NO_TRANSPOSE")),
      "2:8: 'stablehlo.triangular_solve' needs a's size to match the rows of b, not "
      "tensor<3x3xf32> and tensor<2x1xf32>");
  EXPECT_EQ(compile_error(
                solve_program("tensor<2x2xf32>", "tensor<2x1xf32>", flags, "TRANSPOSE_INVALID")),
            "2:8: 'stablehlo.triangular_solve' has an unknown transpose_a 'TRANSPOSE_INVALID'");
  EXPECT_EQ(compile_error(solve_program("tensor<2x2xf32>", "tensor<2x1xf32>",
                                        "left_side = true, lower = true", "NO_TRANSPOSE")),
            "2:8: 'stablehlo.triangular_solve' needs the attribute 'unit_diagonal'");
  const std::string mistyped =
      "func.func @main(%a: tensor<2x2xf32>) -> tensor<2x3xf32> {\n"
      "  %r = \"stablehlo.cholesky\"(%a) {lower = true} : (tensor<2x2xf32>) -> tensor<2x3xf32>\n"
      "  return %r : tensor<2x3xf32>\n}\n";
  EXPECT_EQ(compile_error(mistyped),
            "2:8: 'stablehlo.cholesky' result type tensor<2x3xf32> should be tensor<2x2xf32>");
}

}  // namespace
}  // namespace ndbuf::program
