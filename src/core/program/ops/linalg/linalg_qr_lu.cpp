// QR (geqrf, orgqr / ungqr) and LU (getrf) over batches of matrices.
#include <algorithm>

#include "program/ops/linalg/linalg_common.hpp"

namespace ndbuf::program {
namespace linalg {
namespace {

void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  const int lda = std::max(1, m);
  dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
void geqrf(int m, int n, zcomplex* a, zcomplex* tau, zcomplex* work, int lwork, int* info) {
  const int lda = std::max(1, m);
  zgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  const int lda = std::max(1, m);
  dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, zcomplex* a, const zcomplex* tau, zcomplex* work, int lwork,
           int* info) {
  const int lda = std::max(1, m);
  zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}
void getrf(int m, int n, double* a, int* ipiv, int* info) {
  const int lda = std::max(1, m);
  dgetrf_(&m, &n, a, &lda, ipiv, info);
}
void getrf(int m, int n, zcomplex* a, int* ipiv, int* info) {
  const int lda = std::max(1, m);
  zgetrf_(&m, &n, a, &lda, ipiv, info);
}

void potrf(char uplo, int n, double* a, int* info) {
  const int lda = std::max(1, n);
  dpotrf_(&uplo, &n, a, &lda, info, 1);
}
void potrf(char uplo, int n, zcomplex* a, int* info) {
  const int lda = std::max(1, n);
  zpotrf_(&uplo, &n, a, &lda, info, 1);
}

template <class T>
CholeskyFactor cholesky_typed(const Tensor& dense, const Batch& b, bool lower) {
  using W = work_t<T>;
  const int n = b.n;
  CholeskyFactor out{Tensor::allocate(dense.dtype(), dense.shape(), Order::kRowMajor),
                     Tensor::allocate(DType::kI32, b.lead, Order::kRowMajor)};
  auto* infos = static_cast<int32_t*>(out.info.data());
  std::vector<W> a(std::max<size_t>(1, static_cast<size_t>(n) * n));
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    infos[e] = 0;
    if (n == 0) continue;
    load(src + e * n * n, n, n, a.data());
    potrf(lower ? 'L' : 'U', n, a.data(), &infos[e]);
    store(a.data(), n, n, n, static_cast<T*>(out.factor.data()) + e * n * n);
  }
  return out;
}

template <class T>
QrFactors qr_typed(const Tensor& dense, const Batch& b) {
  using W = work_t<T>;
  const int k = std::min(b.m, b.n);
  QrFactors out{Tensor::allocate(dense.dtype(), dense.shape(), Order::kRowMajor),
                Tensor::allocate(dense.dtype(), with_tail(b.lead, {k}), Order::kRowMajor)};
  if (k == 0) return out;
  std::vector<W> a(static_cast<size_t>(b.m) * b.n), tau(static_cast<size_t>(k));
  W query{};
  int info = 0;
  geqrf(b.m, b.n, a.data(), tau.data(), &query, -1, &info);
  std::vector<W> work(static_cast<size_t>(work_size(query)));
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * b.m * b.n, b.m, b.n, a.data());
    geqrf(b.m, b.n, a.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    store(a.data(), b.m, b.m, b.n, static_cast<T*>(out.packed.data()) + e * b.m * b.n);
    store(tau.data(), k, k, 1, static_cast<T*>(out.tau.data()) + e * k);
  }
  return out;
}

// Q's first `c` columns from `r` reflectors (r <= c <= min(m, n)).
template <class T>
Tensor q_typed(const Tensor& packed, const Tensor& tau_in, const Batch& b, int r, int c) {
  using W = work_t<T>;
  Tensor q = Tensor::allocate(packed.dtype(), with_tail(b.lead, {b.m, c}), Order::kRowMajor);
  if (c == 0 || b.count == 0) return q;
  std::vector<W> full(static_cast<size_t>(b.m) * b.n), tau(static_cast<size_t>(std::max(r, 1)));
  W query{};
  int info = 0;
  orgqr(b.m, c, r, full.data(), tau.data(), &query, -1, &info);
  std::vector<W> work(static_cast<size_t>(work_size(query)));
  const T* src = static_cast<const T*>(packed.data());
  const T* tau_src = static_cast<const T*>(tau_in.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    // Column-major: the first c columns are the first m * c entries.
    load(src + e * b.m * b.n, b.m, b.n, full.data());
    load(tau_src + e * r, r, 1, tau.data());
    orgqr(b.m, c, r, full.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    store(full.data(), b.m, b.m, c, static_cast<T*>(q.data()) + e * b.m * c);
  }
  return q;
}

template <class T>
LuFactors lu_typed(const Tensor& dense, const Batch& b) {
  using W = work_t<T>;
  const int k = std::min(b.m, b.n);
  LuFactors out{Tensor::allocate(dense.dtype(), dense.shape(), Order::kRowMajor),
                Tensor::allocate(DType::kI32, with_tail(b.lead, {k}), Order::kRowMajor),
                Tensor::allocate(DType::kI32, b.lead, Order::kRowMajor)};
  auto* infos = static_cast<int32_t*>(out.info.data());
  for (int64_t e = 0; e < b.count; ++e) infos[e] = 0;
  if (k == 0) return out;
  std::vector<W> a(static_cast<size_t>(b.m) * b.n);
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * b.m * b.n, b.m, b.n, a.data());
    int info = 0;  // > 0: exactly singular, which is not an error here
    getrf(b.m, b.n, a.data(), static_cast<int*>(out.pivots.data()) + e * k, &info);
    infos[e] = info;
    store(a.data(), b.m, b.m, b.n, static_cast<T*>(out.lu.data()) + e * b.m * b.n);
  }
  return out;
}

}  // namespace
}  // namespace linalg

QrFactors qr_factor(const Tensor& a) {
  const linalg::Batch b = linalg::batch_of(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::qr_typed<decltype(tag)>(dense, b); });
}

Tensor qr_q(const Tensor& packed, const Tensor& tau, int64_t columns) {
  const linalg::Batch b = linalg::batch_of(packed.shape());
  const int64_t k = std::min(b.m, b.n);
  const int64_t r = tau.rank() == 0 ? -1 : tau.shape().back();
  const Shape want = linalg::with_tail(b.lead, {r});
  if (tau.dtype() != packed.dtype() || r < 0 || r > k || tau.shape() != want) {
    fail(ErrorKind::kInvalidArgument, "tau must have the reflectors' dtype and shape " +
                                          shape_to_tuple(linalg::with_tail(b.lead, {k})) +
                                          " or shorter in its last dim");
  }
  const int64_t c = columns < 0 ? r : columns;
  if (c < r || c > k) {
    fail(ErrorKind::kInvalidArgument, "Q can have from " + std::to_string(r) + " to " +
                                          std::to_string(k) + " columns, not " + std::to_string(c));
  }
  const Tensor p = make_dense(to_host(packed), Order::kRowMajor);
  const Tensor t = make_dense(to_host(tau), Order::kRowMajor);
  return linalg::dispatch_float(packed.dtype(), [&](auto tag) {
    return linalg::q_typed<decltype(tag)>(p, t, b, static_cast<int>(r), static_cast<int>(c));
  });
}

LuFactors lu_factor(const Tensor& a) {
  const linalg::Batch b = linalg::batch_of(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::lu_typed<decltype(tag)>(dense, b); });
}

CholeskyFactor cholesky_factor(const Tensor& a, bool lower) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::cholesky_typed<decltype(tag)>(dense, b, lower); });
}

DType real_dtype(DType dtype) {
  if (dtype == DType::kC64) return DType::kF32;
  if (dtype == DType::kC128) return DType::kF64;
  return dtype;
}

}  // namespace ndbuf::program
