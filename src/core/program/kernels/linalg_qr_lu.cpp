// QR (geqrf, orgqr / ungqr) and LU (getrf) over batches of matrices.
#include <algorithm>

#include "program/kernels/linalg_common.hpp"

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
void orgqr(int m, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  const int lda = std::max(1, m);
  dorgqr_(&m, &k, &k, a, &lda, tau, work, &lwork, info);
}
void orgqr(int m, int k, zcomplex* a, const zcomplex* tau, zcomplex* work, int lwork, int* info) {
  const int lda = std::max(1, m);
  zungqr_(&m, &k, &k, a, &lda, tau, work, &lwork, info);
}
void getrf(int m, int n, double* a, int* ipiv, int* info) {
  const int lda = std::max(1, m);
  dgetrf_(&m, &n, a, &lda, ipiv, info);
}
void getrf(int m, int n, zcomplex* a, int* ipiv, int* info) {
  const int lda = std::max(1, m);
  zgetrf_(&m, &n, a, &lda, ipiv, info);
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

template <class T>
Tensor q_typed(const Tensor& packed, const Tensor& tau_in, const Batch& b) {
  using W = work_t<T>;
  const int k = std::min(b.m, b.n);
  Tensor q = Tensor::allocate(packed.dtype(), with_tail(b.lead, {b.m, k}), Order::kRowMajor);
  if (k == 0) return q;
  std::vector<W> full(static_cast<size_t>(b.m) * b.n), tau(static_cast<size_t>(k));
  W query{};
  int info = 0;
  orgqr(b.m, k, full.data(), tau.data(), &query, -1, &info);
  std::vector<W> work(static_cast<size_t>(work_size(query)));
  const T* src = static_cast<const T*>(packed.data());
  const T* tau_src = static_cast<const T*>(tau_in.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    // Column-major: the first k columns are the first m * k entries.
    load(src + e * b.m * b.n, b.m, b.n, full.data());
    load(tau_src + e * k, k, 1, tau.data());
    orgqr(b.m, k, full.data(), tau.data(), work.data(), static_cast<int>(work.size()), &info);
    store(full.data(), b.m, b.m, k, static_cast<T*>(q.data()) + e * b.m * k);
  }
  return q;
}

template <class T>
LuFactors lu_typed(const Tensor& dense, const Batch& b) {
  using W = work_t<T>;
  const int k = std::min(b.m, b.n);
  LuFactors out{Tensor::allocate(dense.dtype(), dense.shape(), Order::kRowMajor),
                Tensor::allocate(DType::kI32, with_tail(b.lead, {k}), Order::kRowMajor)};
  if (k == 0) return out;
  std::vector<W> a(static_cast<size_t>(b.m) * b.n);
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * b.m * b.n, b.m, b.n, a.data());
    int info = 0;  // > 0: exactly singular, which is not an error here
    getrf(b.m, b.n, a.data(), static_cast<int*>(out.pivots.data()) + e * k, &info);
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

Tensor qr_q(const Tensor& packed, const Tensor& tau) {
  const linalg::Batch b = linalg::batch_of(packed.shape());
  Shape want = linalg::with_tail(b.lead, {std::min(b.m, b.n)});
  if (tau.dtype() != packed.dtype() || tau.shape() != want) {
    fail(ErrorKind::kInvalidArgument,
         "tau must have the reflectors' dtype and shape " + shape_to_tuple(want));
  }
  const Tensor p = make_dense(to_host(packed), Order::kRowMajor);
  const Tensor t = make_dense(to_host(tau), Order::kRowMajor);
  return linalg::dispatch_float(packed.dtype(),
                                [&](auto tag) { return linalg::q_typed<decltype(tag)>(p, t, b); });
}

LuFactors lu_factor(const Tensor& a) {
  const linalg::Batch b = linalg::batch_of(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::lu_typed<decltype(tag)>(dense, b); });
}

DType real_dtype(DType dtype) {
  if (dtype == DType::kC64) return DType::kF32;
  if (dtype == DType::kC128) return DType::kF64;
  return dtype;
}

}  // namespace ndbuf::program
