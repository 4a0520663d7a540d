// Tridiagonal matrices over batches: the reduction of symmetric / Hermitian matrices to
// tridiagonal form (sytrd / hetrd) and the solution of tridiagonal systems (gtsv).
#include <algorithm>

#include "program/ops/linalg/linalg_common.hpp"

namespace ndbuf::program {
namespace linalg {
namespace {

void sytrd(char uplo, int n, double* a, double* d, double* e, double* tau, double* work,
           int lwork) {
  int info = 0;
  dsytrd_(&uplo, &n, a, &n, d, e, tau, work, &lwork, &info, 1);
}
void sytrd(char uplo, int n, zcomplex* a, double* d, double* e, zcomplex* tau, zcomplex* work,
           int lwork) {
  int info = 0;
  zhetrd_(&uplo, &n, a, &n, d, e, tau, work, &lwork, &info, 1);
}

template <class T>
TridiagonalFactors tridiagonal_typed(const Tensor& dense, const Batch& b, bool lower) {
  using W = work_t<T>;
  using R = typename RealOf<T>::type;
  const int n = b.n, m = std::max(n - 1, 0);
  const int64_t nn = int64_t{n} * n;
  const DType real = real_dtype(dense.dtype());
  TridiagonalFactors out{zeroed(dense.dtype(), dense.shape()), zeroed(real, with_tail(b.lead, {n})),
                         zeroed(real, with_tail(b.lead, {m})),
                         zeroed(dense.dtype(), with_tail(b.lead, {m})), zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  const char uplo = lower ? 'L' : 'U';
  std::vector<W> a(nn), tau(std::max(1, m)), work(1);
  std::vector<double> d(n), e(std::max(1, m));
  sytrd(uplo, n, a.data(), d.data(), e.data(), tau.data(), work.data(), -1);
  const int lwork = work_size(work[0]);
  work.assign(static_cast<size_t>(lwork), W{});
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t k = 0; k < b.count; ++k) {
    check_interrupt();
    load(src + k * nn, n, n, a.data());
    sytrd(uplo, n, a.data(), d.data(), e.data(), tau.data(), work.data(), lwork);
    store(a.data(), n, n, n, static_cast<T*>(out.packed.data()) + k * nn);
    store(d.data(), n, n, 1, static_cast<R*>(out.diagonal.data()) + k * n);
    store(e.data(), m, m, 1, static_cast<R*>(out.offdiagonal.data()) + k * m);
    store(tau.data(), m, m, 1, static_cast<T*>(out.tau.data()) + k * m);
  }
  return out;
}

int gtsv(int n, int nrhs, double* dl, double* d, double* du, double* b) {
  int info = 0;
  const int ldb = std::max(1, n);
  dgtsv_(&n, &nrhs, dl, d, du, b, &ldb, &info);
  return info;
}
int gtsv(int n, int nrhs, zcomplex* dl, zcomplex* d, zcomplex* du, zcomplex* b) {
  int info = 0;
  const int ldb = std::max(1, n);
  zgtsv_(&n, &nrhs, dl, d, du, b, &ldb, &info);
  return info;
}

// The three diagonals of one system, widened; LAPACK's dl is diagonals[0] from position 1.
template <class T, class W>
void load_diagonals(const std::vector<const T*>& in, int64_t offset, int n,
                    std::vector<std::vector<W>>& work) {
  for (size_t k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i) work[k][i] = W(in[k][offset + i]);
  }
}

template <class T>
TridiagonalSolution tridiagonal_solve_typed(const std::vector<Tensor>& diagonals, const Tensor& rhs,
                                            const Batch& b) {
  using W = work_t<T>;
  const int n = b.m, k = b.n;
  TridiagonalSolution out{
      zeroed(rhs.dtype(), diagonals[0].shape()), zeroed(rhs.dtype(), diagonals[1].shape()),
      zeroed(rhs.dtype(), diagonals[2].shape()), zeroed(rhs.dtype(), rhs.shape()), zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  std::vector<const T*> in;
  for (const Tensor& t : diagonals) in.push_back(static_cast<const T*>(t.data()));
  T* const results[3] = {static_cast<T*>(out.dl.data()), static_cast<T*>(out.d.data()),
                         static_cast<T*>(out.du.data())};
  std::vector<std::vector<W>> work(3, std::vector<W>(n));
  std::vector<W> x(std::max<size_t>(1, static_cast<size_t>(n) * k));
  const T* src = static_cast<const T*>(rhs.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load_diagonals(in, e * n, n, work);
    load(src + e * n * k, n, k, x.data());
    static_cast<int32_t*>(out.info.data())[e] =
        gtsv(n, k, work[0].data() + 1, work[1].data(), work[2].data(), x.data());
    for (size_t d = 0; d < 3; ++d) store(work[d].data(), n, n, 1, results[d] + e * n);
    store(x.data(), n, n, k, static_cast<T*>(out.x.data()) + e * n * k);
  }
  return out;
}

}  // namespace
}  // namespace linalg

TridiagonalFactors tridiagonal_factor(const Tensor& a, bool lower) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(a.dtype(), [&](auto tag) {
    return linalg::tridiagonal_typed<decltype(tag)>(dense, b, lower);
  });
}

TridiagonalSolution tridiagonal_solve(const Tensor& dl, const Tensor& d, const Tensor& du,
                                      const Tensor& b) {
  const linalg::Batch batch = linalg::batch_of(b.shape());
  const Shape diagonal_shape = linalg::with_tail(batch.lead, {batch.m});
  std::vector<Tensor> diagonals;
  for (const Tensor* t : {&dl, &d, &du}) {
    if (t->dtype() != b.dtype() || t->shape() != diagonal_shape) {
      fail(ErrorKind::kInvalidArgument,
           "the diagonals must be " + std::string(dtype_name(b.dtype())) + " " +
               shape_to_string(diagonal_shape) + " to match the right-hand sides " +
               shape_to_string(b.shape()));
    }
    diagonals.push_back(make_dense(to_host(*t), Order::kRowMajor));
  }
  const Tensor rhs = make_dense(to_host(b), Order::kRowMajor);
  return linalg::dispatch_float(b.dtype(), [&](auto tag) {
    return linalg::tridiagonal_solve_typed<decltype(tag)>(diagonals, rhs, batch);
  });
}

}  // namespace ndbuf::program
