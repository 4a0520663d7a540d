// Batched dense factorisations through the LAPACK R links (fortran_lapack.hpp). Operands are
// host tensors of shape [..., m, n] (any strides; the leading dims are a batch) of f32, f64,
// c64 or c128; each matrix is factored in double or double-complex precision (f32 / c64 are
// widened and the results narrowed back). Results are new dense row-major tensors; the
// operand's dtype unless said otherwise. k = min(m, n) below.
#pragma once

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// Householder QR (geqrf): packed [..., m, n] holds R on and above the diagonal and the
// reflectors below it; tau [..., k] their scales.
struct QrFactors {
  Tensor packed;
  Tensor tau;
};
QrFactors qr_factor(const Tensor& a);

// The first `columns` columns of Q from the first r reflectors of geqrf (orgqr / ungqr):
// q [..., m, columns]. `tau` has shape [..., r], r <= k; `columns` is from r to k, -1 for r.
Tensor qr_q(const Tensor& packed, const Tensor& tau, int64_t columns = -1);

// LU with partial pivoting (getrf): lu [..., m, n] holds U on and above the diagonal and L's
// multipliers below it (unit diagonal implied); pivots [..., k] i32 are LAPACK's 1-based row
// interchanges (row i was swapped with row pivots[i] in turn). A singular matrix is no error:
// U has a zero on its diagonal.
struct LuFactors {
  Tensor lu;
  Tensor pivots;
  Tensor info;  // i32 [...]: LAPACK's info, 0 or the 1-based index of U's first zero pivot
};
LuFactors lu_factor(const Tensor& a);

// Singular value decomposition (gesdd): a = u diag(s) vt, s [..., k] of the real dtype (f32
// for f32 / c64, f64 for f64 / c128) in descending order; reduced (jobz = 'S': u [..., m, k],
// vt [..., k, n]) or `full` (jobz = 'A': u [..., m, m], vt [..., n, n]); vt is V's conjugate
// transpose for complex operands. info [...] i32 is LAPACK's (nonzero: did not converge, and
// that matrix's factors are undefined).
struct SvdFactors {
  Tensor u;
  Tensor s;
  Tensor vt;
  Tensor info;
};
SvdFactors svd_factor(const Tensor& a, bool full = false);

// Eigen-decomposition of symmetric / Hermitian matrices [..., n, n] (syevd / heevd) read from
// their lower (`lower`) or upper triangle: vectors [..., n, n] (column j belongs to values[j]),
// values [..., n] of the real dtype in ascending order.
struct EighFactors {
  Tensor vectors;
  Tensor values;
  Tensor info;  // i32 [...], LAPACK's (nonzero: did not converge)
};
EighFactors eigh_factor(const Tensor& a, bool lower);

// Cholesky factor (potrf) of positive definite matrices [..., n, n] read from their lower or
// upper triangle: factor holds L (a = L L^H) or U (a = U^H U) in that triangle and the
// operand's values in the other; info [...] i32 is LAPACK's (k > 0: the leading minor of order
// k is not positive definite, and the factor is incomplete).
struct CholeskyFactor {
  Tensor factor;
  Tensor info;
};
CholeskyFactor cholesky_factor(const Tensor& a, bool lower);

// Eigen-decomposition of general square matrices [..., n, n] (geev): values [..., n] and, where
// asked for, left / right eigenvectors [..., n, n] (column j belongs to values[j], unit 2-norm,
// largest component real, as LAPACK normalises them), all of the complex dtype (c64 for f32 /
// c64, c128 for f64 / c128). Vectors not asked for are zeros. A matrix with a non-finite entry
// is not decomposed: its info is -4 and its results are NaN.
struct EigFactors {
  Tensor values;
  Tensor left;
  Tensor right;
  Tensor info;  // i32 [...]: LAPACK's (k > 0: the QR algorithm did not converge), or -4
};
EigFactors eig_factor(const Tensor& a, bool left, bool right);

// Schur decomposition of general square matrices (gees, eigenvalues unsorted): a = vs t vs^H,
// t [..., n, n] upper triangular (complex dtypes) or upper quasi-triangular with a 2 x 2 block
// per complex pair (real dtypes); vectors [..., n, n] (zeros unless `vectors`); values [..., n]
// of the complex dtype, in the order of t's diagonal.
struct SchurFactors {
  Tensor t;
  Tensor vectors;
  Tensor values;
  Tensor info;  // i32 [...]: LAPACK's
};
SchurFactors schur_factor(const Tensor& a, bool vectors);

// Reduction of square matrices to upper Hessenberg form (gehrd) between LAPACK's 1-based rows
// `low` and `high` (1 <= low <= high <= n): packed [..., n, n] holds H on and above the first
// subdiagonal and the reflectors below it; tau [..., n - 1] their scales (0 outside low..high-1).
struct HessenbergFactors {
  Tensor packed;
  Tensor tau;
  Tensor info;  // i32 [...], always 0
};
HessenbergFactors hessenberg_factor(const Tensor& a, int low, int high);

// Reduction of symmetric / Hermitian matrices [..., n, n], read from their lower or upper
// triangle, to real symmetric tridiagonal form (sytrd / hetrd): packed holds the reflectors in
// that triangle (the other keeps the operand's values); diagonal [..., n] and offdiagonal
// [..., n - 1] of the real dtype; tau [..., n - 1] of the operand's dtype.
struct TridiagonalFactors {
  Tensor packed;
  Tensor diagonal;
  Tensor offdiagonal;
  Tensor tau;
  Tensor info;  // i32 [...], always 0
};
TridiagonalFactors tridiagonal_factor(const Tensor& a, bool lower);

// Solves tridiagonal systems (gtsv) with Gaussian elimination and partial pivoting: sub-,
// main and super-diagonals dl, d, du [..., n] (dl[0] and du[n - 1] are not read), right-hand
// sides b [..., n, k]. Returns LAPACK's overwritten dl (from position 1), d and du (the
// factors), the solutions x [..., n, k], and info (k > 0: U(k, k) is exactly zero and that
// system's x is not computed).
struct TridiagonalSolution {
  Tensor dl;
  Tensor d;
  Tensor du;
  Tensor x;
  Tensor info;
};
TridiagonalSolution tridiagonal_solve(const Tensor& dl, const Tensor& d, const Tensor& du,
                                      const Tensor& b);

// The complex dtype of a float or complex dtype (f32 -> c64, f64 -> c128).
DType complex_dtype(DType dtype);

// Throws "`what` did not converge" when an info tensor has a nonzero entry.
void expect_converged(const Tensor& info, const char* what);

// The real dtype of a float or complex dtype (c64 -> f32, c128 -> f64).
DType real_dtype(DType dtype);

}  // namespace ndbuf::program
