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

// The first k columns of Q from geqrf's reflectors (orgqr / ungqr): q [..., m, k]. `tau` has
// shape [..., k] (k = min(m, n) of `packed`).
Tensor qr_q(const Tensor& packed, const Tensor& tau);

// LU with partial pivoting (getrf): lu [..., m, n] holds U on and above the diagonal and L's
// multipliers below it (unit diagonal implied); pivots [..., k] i32 are LAPACK's 1-based row
// interchanges (row i was swapped with row pivots[i] in turn). A singular matrix is no error:
// U has a zero on its diagonal.
struct LuFactors {
  Tensor lu;
  Tensor pivots;
};
LuFactors lu_factor(const Tensor& a);

// Reduced singular value decomposition (gesdd, jobz = 'S'): a = u diag(s) vt, u [..., m, k],
// s [..., k] of the real dtype (f32 for f32 / c64, f64 for f64 / c128) in descending order,
// vt [..., k, n] (V's conjugate transpose for complex operands).
struct SvdFactors {
  Tensor u;
  Tensor s;
  Tensor vt;
};
SvdFactors svd_factor(const Tensor& a);

// Eigen-decomposition of symmetric / Hermitian matrices [..., n, n] (syevd / heevd) read from
// their lower (`lower`) or upper triangle: vectors [..., n, n] (column j belongs to values[j]),
// values [..., n] of the real dtype in ascending order.
struct EighFactors {
  Tensor vectors;
  Tensor values;
};
EighFactors eigh_factor(const Tensor& a, bool lower);

// The real dtype of a float or complex dtype (c64 -> f32, c128 -> f64).
DType real_dtype(DType dtype);

}  // namespace ndbuf::program
