// Cholesky factors and triangular solves, one batch matrix at a time (see linalg_triangular.hpp).
#include "program/ops/linalg/linalg_triangular.hpp"

#include <algorithm>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/blas_threads.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/linalg/fortran_lapack.hpp"
#include "program/ops/linalg/lapack_single.hpp"
#include "program/ops/linalg/linalg.hpp"
#include "program/ops/linalg/linalg_common.hpp"

namespace ndbuf::program {
namespace {

// The dtype LAPACK computes `d` in: f64 for the real types, c128 for the complex ones.
DType wide_dtype(DType d) { return is_complex(d) ? DType::kC128 : DType::kF64; }

// `t` dense row-major in its wide dtype (possibly `t` itself).
Tensor widen(const Tensor& t) {
  const DType wide = wide_dtype(t.dtype());
  return t.dtype() == wide ? make_dense(t, Order::kRowMajor) : convert(t, wide);
}

// A fresh dense row-major copy of `t` in its wide dtype, free to overwrite (convert() always
// returns a new tensor).
Tensor widen_fresh(const Tensor& t) {
  const DType wide = wide_dtype(t.dtype());
  if (t.dtype() != wide) return convert(t, wide);
  Tensor out = Tensor::allocate(wide, t.shape(), Order::kRowMajor);
  copy_to_dense(t, out.data(), Order::kRowMajor);
  return out;
}

Tensor narrow(const Tensor& wide, DType to) {
  return wide.dtype() == to ? wide : convert(wide, to);
}

template <class T>
T not_a_number() {
  using Real = typename linalg::RealOf<T>::type;
  constexpr Real kNaN = std::numeric_limits<Real>::quiet_NaN();
  if constexpr (std::is_same_v<T, Real>) {
    return kNaN;
  } else {
    return T(kNaN, kNaN);
  }
}

// Zeros in the triangle of row `i` of an n x n matrix that the factor does not use: after the
// diagonal for a factor in the lower triangle (`lower`, in the memory's row-major terms), before
// it otherwise.
template <class T>
void clear_other_triangle(T* row, int64_t i, int64_t n, bool lower) {
  if (lower) {
    std::fill(row + i + 1, row + n, T(0));
  } else {
    std::fill(row, row + i, T(0));
  }
}

// stablehlo.cholesky's result from LAPACK's factor: zeros in the other triangle (written here
// unless `cleared` says the copy made them), and a matrix of NaNs where the factorisation
// failed (info != 0), as JAX on XLA gives; a `masked` one keeps the zeros there too (NaNs in
// the factor's triangle only).
// `lower` names the triangle kept in row-major terms; a column-major factor keeps the other.
template <class T>
void finish_factors(Tensor& factor, const Tensor& info, bool lower, bool masked, bool cleared) {
  const int64_t n = factor.shape().back();
  T* m = static_cast<T*>(factor.data());
  const auto* infos = static_cast<const int32_t*>(info.data());
  for (int64_t b = 0; b < info.numel(); ++b, m += n * n) {
    const bool failed = infos[b] != 0;
    if (failed && !masked) {
      std::fill(m, m + n * n, not_a_number<T>());
      continue;
    }
    if (!failed && cleared) continue;
    for (int64_t i = 0; i < n; ++i) {
      T* row = m + i * n;
      T* kept = lower ? row : row + i;
      if (failed) std::fill(kept, kept + (lower ? i + 1 : n - i), not_a_number<T>());
      clear_other_triangle(row, i, n, lower);
    }
  }
}

// A's matrices copied into `factor` (dense in `layout`), reading only the factor's triangle
// (`lower`, in the memory's row-major terms) and writing zeros in the other, which potrf leaves
// alone: one pass instead of a copy and a second one to clear. Returns false (nothing done)
// unless A lies dense in `layout` in host memory.
template <class T>
bool copy_factor_triangle(const Tensor& a, Tensor& factor, Order layout, bool lower) {
  if (!is_host(a.device()) || !a.is_contiguous(layout)) return false;
  const int64_t n = factor.shape().back();
  if (n == 0) return true;
  const T* in = static_cast<const T*>(a.data());
  T* out = static_cast<T*>(factor.data());
  const auto row_bytes = static_cast<int64_t>(2 * sizeof(T)) * n;
  // Rows of n elements each: blocks hold rows, not 16384 of them (one block, one thread).
  for_each_block(
      factor.numel() / n, row_bytes,
      [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t i = r % n;
          const int64_t first = lower ? 0 : i;
          const int64_t last = lower ? i + 1 : n;
          std::copy(in + r * n + first, in + r * n + last, out + r * n + first);
          clear_other_triangle(out + r * n, i, n, lower);
        }
      },
      n);
  return true;
}

void trsm(const char* s, const char* u, const char* t, const char* d, int m, int n, const double* a,
          int lda, double* b) {
  const double one = 1;
  dtrsm_(s, u, t, d, &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1);
}
void trsm(const char* s, const char* u, const char* t, const char* d, int m, int n,
          const std::complex<double>* a, int lda, std::complex<double>* b) {
  const std::complex<double> one = 1;
  ztrsm_(s, u, t, d, &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1);
}

// The single-precision ones, called only where single_precision_lapack() found them.
void trsm(const char* s, const char* u, const char* t, const char* d, int m, int n, const float* a,
          int lda, float* b) {
  const float one = 1;
  single_precision_lapack().strsm(s, u, t, d, &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1);
}
void trsm(const char* s, const char* u, const char* t, const char* d, int m, int n,
          const std::complex<float>* a, int lda, std::complex<float>* b) {
  const std::complex<float> one = 1;
  single_precision_lapack().ctrsm(s, u, t, d, &m, &n, &one, a, &lda, b, &m, 1, 1, 1, 1);
}

// LAPACK's potrf in place on a column-major n x n matrix; false where the library lacks it.
bool potrf(char uplo, int n, double* a, int* info) {
  const int lda = std::max(1, n);
  dpotrf_(&uplo, &n, a, &lda, info, 1);
  return true;
}
bool potrf(char uplo, int n, std::complex<double>* a, int* info) {
  const int lda = std::max(1, n);
  zpotrf_(&uplo, &n, a, &lda, info, 1);
  return true;
}
bool potrf(char uplo, int n, float* a, int* info) {
  const SpotrfFn f = single_precision_lapack().spotrf;
  const int lda = std::max(1, n);
  if (f != nullptr) f(&uplo, &n, a, &lda, info, 1);
  return f != nullptr;
}
bool potrf(char uplo, int n, std::complex<float>* a, int* info) {
  const CpotrfFn f = single_precision_lapack().cpotrf;
  const int lda = std::max(1, n);
  if (f != nullptr) f(&uplo, &n, a, &lda, info, 1);
  return f != nullptr;
}

bool has_potrf(DType d) {
  const SinglePrecisionLapack& single = single_precision_lapack();
  return d == DType::kF64 || d == DType::kC128 || (d == DType::kF32 && single.spotrf) ||
         (d == DType::kC64 && single.cpotrf);
}

bool has_trsm(DType d) {
  const SinglePrecisionLapack& single = single_precision_lapack();
  return (d == DType::kF32 && single.strsm) || (d == DType::kC64 && single.ctrsm);
}

// The layout cholesky and triangular_solve work in: column-major for one matrix that arrives
// column-major (an R matrix), which LAPACK then reads as it lies; row-major otherwise.
Order lapack_layout(const Tensor& a) {
  const bool column_major =
      a.rank() == 2 && !a.is_contiguous(Order::kRowMajor) && a.is_contiguous(Order::kColumnMajor);
  return column_major ? Order::kColumnMajor : Order::kRowMajor;
}

// The factor in A's own type, on a fresh row-major copy of A (of the factor's triangle only
// where A lies dense, else the threaded copy from any layout), which LAPACK reads as M = A^T.
// potrf('U') factors M = U^H U reading M's upper triangle, which is A's lower one, and leaves U
// there: read row-major that is L = U^T, and L L^H = (U^H U)^T = A. So the lower factor is
// potrf('U') in place (the upper one 'L'), with no layout copy around the call and only the
// factor's triangle of A read. A matrix that arrives column-major (an R matrix) is copied as it
// lies, which LAPACK reads as A itself: potrf('L') leaves L, and the factor is returned
// column-major, so neither copy transposes.
template <class T>
Tensor cholesky_in_place(const Tensor& a, bool lower, bool masked) {
  const int64_t n = a.shape().back();
  const int order = linalg::lapack_size(n, "rows");
  const Order layout = lapack_layout(a);
  const bool as_lapack = layout == Order::kColumnMajor;
  const bool kept_lower = lower != as_lapack;
  Tensor factor = Tensor::allocate(a.dtype(), a.shape(), layout);
  const bool cleared = copy_factor_triangle<T>(a, factor, layout, kept_lower);
  if (!cleared) copy_to_dense(to_host(a), factor.data(), layout);
  Tensor info = Tensor::allocate(DType::kI32, Shape(a.shape().begin(), a.shape().end() - 2),
                                 Order::kRowMajor);
  auto* infos = static_cast<int32_t*>(info.data());
  T* m = static_cast<T*>(factor.data());
  const int threads = sync_blas_threads_for_product();
  run_blas_product(threads, [&] {
    for (int64_t b = 0; b < info.numel(); ++b) {
      infos[b] = 0;
      if (n > 0) potrf(kept_lower ? 'U' : 'L', order, m + b * n * n, &infos[b]);
      check_interrupt();
    }
  });
  sync_blas_threads();
  finish_factors<T>(factor, info, kept_lower, masked, cleared);
  return factor;
}

int64_t batch_count(const Shape& s) {
  int64_t count = 1;
  for (size_t k = 0; k + 2 < s.size(); ++k) count *= s[k];
  return count;
}

// Dense row-major operands are read by LAPACK (column-major) as their transposes: op(A) X = B
// is solved in place as X^T op(A)^T = B^T, a solve from the other side against the other
// triangle with the same op (LAPACK sees A^T, and op(A)^T = op(A^T) for N, T and C alike), so
// no layout copy is made around the call. Dense column-major operands (R matrices) are what
// LAPACK reads: the solve is the one asked for.
template <class T>
void solve_matrices(const T* a, T* b, int64_t batch, int64_t k, int64_t m, int64_t n,
                    const TriangularSolveOptions& o, Order order) {
  const bool as_lapack = order == Order::kColumnMajor;
  const char* side = o.left_side == as_lapack ? "L" : "R";
  const char* uplo = o.lower == as_lapack ? "L" : "U";
  const char* trans = o.transpose_a == Transpose::kNone
                          ? "N"
                          : (o.transpose_a == Transpose::kTranspose ? "T" : "C");
  const char* diag = o.unit_diagonal ? "U" : "N";
  const int rows = linalg::lapack_size(as_lapack ? m : n, "columns");
  const int cols = linalg::lapack_size(as_lapack ? n : m, "rows");
  const int size = linalg::lapack_size(k, "rows");
  if (m == 0 || n == 0) return;
  for (int64_t i = 0; i < batch; ++i) {
    trsm(side, uplo, trans, diag, rows, cols, a + i * k * k, size, b + i * m * n);
    check_interrupt();
  }
}

// Solves in the operand's own precision (f32 and c64 through the single-precision routines,
// f64 and c128), in the layout `a` arrives in where that is column-major for one matrix.
template <class T>
Tensor solve_in_place(const Tensor& a, const Tensor& b, const TriangularSolveOptions& o) {
  const size_t r = b.shape().size();
  const int64_t m = b.shape()[r - 2], n = b.shape()[r - 1], k = a.shape()[r - 1];
  const Order order = lapack_layout(a);
  const Tensor da = make_dense(to_host(a), order);
  Tensor x = Tensor::allocate(b.dtype(), b.shape(), order);
  copy_to_dense(to_host(b), x.data(), order);
  solve_matrices(static_cast<const T*>(da.data()), static_cast<T*>(x.data()),
                 batch_count(b.shape()), k, m, n, o, order);
  return x;
}

}  // namespace

std::optional<Transpose> transpose_named(std::string_view name) {
  if (name == "NO_TRANSPOSE") return Transpose::kNone;
  if (name == "TRANSPOSE") return Transpose::kTranspose;
  if (name == "ADJOINT") return Transpose::kAdjoint;
  return std::nullopt;
}

std::string cholesky_problem(const Shape& a) {
  if (a.size() < 2) return "needs an operand of rank 2 or more";
  if (a[a.size() - 1] != a[a.size() - 2]) return "needs square matrices in its last two dimensions";
  return "";
}

std::string triangular_solve_problem(const Shape& a, const Shape& b, bool left_side) {
  if (a.size() < 2 || a.size() != b.size()) return "needs operands of one rank, 2 or more";
  const size_t r = a.size();
  if (a[r - 1] != a[r - 2]) return "needs square matrices a in its last two dimensions";
  if (!std::equal(a.begin(), a.end() - 2, b.begin())) return "needs equal batch dimensions";
  const int64_t against = left_side ? b[r - 2] : b[r - 1];
  if (a[r - 1] != against) {
    return std::string("needs a's size to match the ") + (left_side ? "rows" : "columns") + " of b";
  }
  return "";
}

Tensor cholesky(const Tensor& a, bool lower, bool masked) {
  const std::string problem = cholesky_problem(a.shape());
  if (!problem.empty()) fail(ErrorKind::kInvalidArgument, "cholesky " + problem + ".");
  if (!is_floating(a.dtype()) && !is_complex(a.dtype())) {
    fail(ErrorKind::kInvalidArgument, "cholesky needs a float or complex operand.");
  }
  // The factorisation behind JAX's potrf target (linalg.hpp), which takes f32 / f64 / c64 /
  // c128 and computes in double precision: f16 and bf16 go through f32 exactly.
  const bool half = a.dtype() == DType::kF16 || a.dtype() == DType::kBF16;
  const Tensor in = half ? convert(a, DType::kF32) : a;
  if (has_potrf(in.dtype())) {
    return linalg::dispatch_float(in.dtype(), [&](auto tag) {
      const Tensor factor = cholesky_in_place<decltype(tag)>(in, lower, masked);
      return half ? convert(factor, a.dtype()) : factor;
    });
  }
  CholeskyFactor f = cholesky_factor(in, lower);
  linalg::dispatch_float(f.factor.dtype(), [&](auto tag) {
    finish_factors<decltype(tag)>(f.factor, f.info, lower, masked, false);
  });
  return half ? convert(f.factor, a.dtype()) : f.factor;
}

Tensor triangular_solve(const Tensor& a, const Tensor& b, const TriangularSolveOptions& o) {
  const std::string problem = triangular_solve_problem(a.shape(), b.shape(), o.left_side);
  if (!problem.empty()) fail(ErrorKind::kInvalidArgument, "triangular_solve " + problem + ".");
  if (a.dtype() != b.dtype() || (!is_floating(a.dtype()) && !is_complex(a.dtype()))) {
    fail(ErrorKind::kInvalidArgument,
         "triangular_solve needs float or complex operands of one element type.");
  }
  const DType d = a.dtype();
  if (has_trsm(d) || d == DType::kF64 || d == DType::kC128) {
    return linalg::dispatch_float(d,
                                  [&](auto tag) { return solve_in_place<decltype(tag)>(a, b, o); });
  }
  // f16 and bf16 (and f32 / c64 where the library lacks their routines) in double precision.
  const size_t r = b.shape().size();
  const int64_t m = b.shape()[r - 2], n = b.shape()[r - 1], k = a.shape()[r - 1];
  const int64_t batch = batch_count(b.shape());
  const Tensor wa = widen(a);
  Tensor wb = widen_fresh(b);
  if (wa.dtype() == DType::kF64) {
    solve_matrices(static_cast<const double*>(wa.data()), static_cast<double*>(wb.data()), batch, k,
                   m, n, o, Order::kRowMajor);
  } else {
    solve_matrices(static_cast<const std::complex<double>*>(wa.data()),
                   static_cast<std::complex<double>*>(wb.data()), batch, k, m, n, o,
                   Order::kRowMajor);
  }
  return narrow(wb, b.dtype());
}

}  // namespace ndbuf::program
