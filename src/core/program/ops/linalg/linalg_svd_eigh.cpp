// Singular value (gesdd) and symmetric / Hermitian eigen-decompositions (syevd / heevd) over
// batches of matrices. A matrix LAPACK cannot converge on is an error naming its position.
#include <algorithm>

#include "program/ops/linalg/linalg_common.hpp"

namespace ndbuf::program {
namespace linalg {
namespace {

// Workspaces sized by a query; `rwork` only for the complex routines.
struct Workspace {
  int lwork = -1;
  int lrwork = -1;
  int liwork = -1;
};

void gesdd(char jobz, int m, int n, double* a, double* s, double* u, double* vt, Workspace& ws,
           std::vector<double>& work, std::vector<double>&, std::vector<int>& iwork, int* info) {
  const int lda = std::max(1, m), ldu = std::max(1, m);
  const int ldvt = std::max(1, jobz == 'A' ? n : std::min(m, n));
  dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &ws.lwork, iwork.data(), info,
          1);
}
void gesdd(char jobz, int m, int n, zcomplex* a, double* s, zcomplex* u, zcomplex* vt,
           Workspace& ws, std::vector<zcomplex>& work, std::vector<double>& rwork,
           std::vector<int>& iwork, int* info) {
  const int lda = std::max(1, m), ldu = std::max(1, m);
  const int ldvt = std::max(1, jobz == 'A' ? n : std::min(m, n));
  zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work.data(), &ws.lwork, rwork.data(),
          iwork.data(), info, 1);
}

void syevd(char uplo, int n, double* a, double* w, Workspace& ws, std::vector<double>& work,
           std::vector<double>&, std::vector<int>& iwork, int* info) {
  const char jobz = 'V';
  const int lda = std::max(1, n);
  dsyevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &ws.lwork, iwork.data(), &ws.liwork, info, 1,
          1);
}
void syevd(char uplo, int n, zcomplex* a, double* w, Workspace& ws, std::vector<zcomplex>& work,
           std::vector<double>& rwork, std::vector<int>& iwork, int* info) {
  const char jobz = 'V';
  const int lda = std::max(1, n);
  zheevd_(&jobz, &uplo, &n, a, &lda, w, work.data(), &ws.lwork, rwork.data(), &ws.lrwork,
          iwork.data(), &ws.liwork, info, 1, 1);
}

// Every [rows, rows] matrix of `t` (possibly none) set to the identity.
template <class T>
void fill_identities(const Tensor& t, int rows) {
  T* p = static_cast<T*>(t.data());
  for (int64_t k = 0; k < t.numel(); ++k) p[k] = T(0);
  if (rows == 0) return;
  for (int64_t e = 0; e < t.numel() / (int64_t{rows} * rows); ++e) {
    for (int i = 0; i < rows; ++i) p[e * rows * rows + i * rows + i] = T(1);
  }
}

template <class T>
SvdFactors svd_typed(const Tensor& dense, const Batch& b, bool full) {
  using W = work_t<T>;
  using R = typename RealOf<T>::type;
  const int m = b.m, n = b.n, k = std::min(m, n);
  const int uc = full ? m : k, vr = full ? n : k;  // u's columns, vt's rows
  SvdFactors out{
      Tensor::allocate(dense.dtype(), with_tail(b.lead, {m, uc}), Order::kRowMajor),
      Tensor::allocate(real_dtype(dense.dtype()), with_tail(b.lead, {k}), Order::kRowMajor),
      Tensor::allocate(dense.dtype(), with_tail(b.lead, {vr, n}), Order::kRowMajor), zero_info(b)};
  if (k == 0) {  // LAPACK returns at once; full u / vt are identities
    fill_identities<T>(out.u, m);
    fill_identities<T>(out.vt, n);
    return out;
  }
  const char jobz = full ? 'A' : 'S';
  std::vector<W> a(std::max<size_t>(1, static_cast<size_t>(m) * n)),
      u(std::max<size_t>(1, static_cast<size_t>(m) * uc)),
      vt(std::max<size_t>(1, static_cast<size_t>(vr) * n)), work(1);
  std::vector<double> s(std::max(k, 1));
  const int mx = std::max(m, n);
  std::vector<double> rwork(
      std::is_same_v<W, zcomplex>
          ? std::max<size_t>(1, static_cast<size_t>(k) * std::max(5 * k + 7, 2 * mx + 2 * k + 1))
          : 1);
  std::vector<int> iwork(std::max<size_t>(1, static_cast<size_t>(8) * k));
  Workspace ws;
  int info = 0;
  gesdd(jobz, m, n, a.data(), s.data(), u.data(), vt.data(), ws, work, rwork, iwork, &info);
  ws.lwork = work_size(work[0]);
  work.assign(static_cast<size_t>(ws.lwork), W{});
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * m * n, m, n, a.data());
    gesdd(jobz, m, n, a.data(), s.data(), u.data(), vt.data(), ws, work, rwork, iwork, &info);
    static_cast<int32_t*>(out.info.data())[e] = info;
    store(u.data(), m, m, uc, static_cast<T*>(out.u.data()) + e * m * uc);
    store(s.data(), k, k, 1, static_cast<R*>(out.s.data()) + e * k);
    store(vt.data(), std::max(vr, 1), vr, n, static_cast<T*>(out.vt.data()) + e * vr * n);
  }
  return out;
}

template <class T>
EighFactors eigh_typed(const Tensor& dense, const Batch& b, bool lower) {
  using W = work_t<T>;
  using R = typename RealOf<T>::type;
  const int n = b.n;
  EighFactors out{
      Tensor::allocate(dense.dtype(), dense.shape(), Order::kRowMajor),
      Tensor::allocate(real_dtype(dense.dtype()), with_tail(b.lead, {n}), Order::kRowMajor),
      zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  const char uplo = lower ? 'L' : 'U';
  std::vector<W> a(static_cast<size_t>(n) * n), work(1);
  std::vector<double> w(static_cast<size_t>(n)), rwork(1);
  std::vector<int> iwork(1);
  Workspace ws;
  int info = 0;
  syevd(uplo, n, a.data(), w.data(), ws, work, rwork, iwork, &info);
  ws.lwork = work_size(work[0]);
  ws.liwork = std::max(1, iwork[0]);
  if constexpr (std::is_same_v<W, zcomplex>) ws.lrwork = work_size(rwork[0]);
  work.assign(static_cast<size_t>(ws.lwork), W{});
  iwork.assign(static_cast<size_t>(ws.liwork), 0);
  rwork.assign(static_cast<size_t>(std::max(1, ws.lrwork)), 0.0);
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * n * n, n, n, a.data());
    syevd(uplo, n, a.data(), w.data(), ws, work, rwork, iwork, &info);
    static_cast<int32_t*>(out.info.data())[e] = info;
    store(a.data(), n, n, n, static_cast<T*>(out.vectors.data()) + e * n * n);
    store(w.data(), n, n, 1, static_cast<R*>(out.values.data()) + e * n);
  }
  return out;
}

}  // namespace
}  // namespace linalg

SvdFactors svd_factor(const Tensor& a, bool full) {
  const linalg::Batch b = linalg::batch_of(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::svd_typed<decltype(tag)>(dense, b, full); });
}

EighFactors eigh_factor(const Tensor& a, bool lower) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::eigh_typed<decltype(tag)>(dense, b, lower); });
}

}  // namespace ndbuf::program

namespace ndbuf::program {

void expect_converged(const Tensor& info, const char* what) {
  const auto* p = static_cast<const int32_t*>(info.data());
  for (int64_t e = 0; e < info.numel(); ++e) {
    if (p[e] == 0) continue;
    std::string where;
    if (info.rank() > 0) where = " (matrix " + std::to_string(e + 1) + " of the batch)";
    fail(ErrorKind::kInvalidArgument, std::string(what) + " did not converge" + where);
  }
}

}  // namespace ndbuf::program
