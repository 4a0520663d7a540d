// stablehlo.cholesky and stablehlo.triangular_solve through LAPACK / BLAS (fortran_lapack.hpp).
// f64 / c128 operands are computed in their own precision, f32 / c64 too where the linked
// libraries have the single-precision routines (lapack_single.hpp); otherwise, and for f16 /
// bf16, they are computed in double or double complex and rounded back once.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// [..., n, n] -> the factor of each matrix: lower L with L L^H = A (`lower`), else upper U with
// U^H U = A. Only the factor's triangle of A is read; the other triangle of the result is zero.
// A matrix that is not positive definite gives a matrix of NaNs (no error), as JAX on XLA does;
// with `masked` (a factor whose mask was folded into it, passes/mask_factors.hpp) NaNs in the
// factor's triangle and zeros in the other, as the mask would have made of them.
Tensor cholesky(const Tensor& a, bool lower, bool masked = false);

enum class Transpose : uint8_t { kNone, kTranspose, kAdjoint };
// "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"; nullopt for anything else ("TRANSPOSE_INVALID").
std::optional<Transpose> transpose_named(std::string_view name);

struct TriangularSolveOptions {
  bool left_side = true;  // op(a) x = b, else x op(a) = b
  bool lower = true;      // a's lower triangle is read, else its upper one
  bool unit_diagonal = false;
  Transpose transpose_a = Transpose::kNone;
};

// a [..., m, m] (left) or [..., n, n] (right), b [..., m, n] -> x of b's shape and dtype.
// A singular a gives infinities and NaNs, never an error.
Tensor triangular_solve(const Tensor& a, const Tensor& b, const TriangularSolveOptions& options);
// Why the shapes cannot be solved, or "" when they can (batch dimensions must be equal).
std::string triangular_solve_problem(const Shape& a, const Shape& b, bool left_side);
std::string cholesky_problem(const Shape& a);

}  // namespace ndbuf::program
