// Decompositions of general (nonsymmetric) square matrices over batches: eigenvalues and
// eigenvectors (geev), the Schur form (gees) and the Hessenberg reduction (gehrd). Each
// LAPACK call is wrapped in a small per-precision object that owns its workspace, sized once
// by a query, so the batch loop is the same for real and complex operands.
#include <algorithm>
#include <cmath>
#include <limits>

#include "program/ops/linalg/linalg_common.hpp"

namespace ndbuf::program {
namespace linalg {
namespace {

template <class T>
bool all_finite(const T* p, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    if (!std::isfinite(std::real(p[k])) || !std::isfinite(std::imag(p[k]))) return false;
  }
  return true;
}

// LAPACK's real eigenvectors, where a complex pair j, j + 1 is stored as its real and imaginary
// parts in columns j and j + 1, as complex columns (column-major n x n both).
void unpack_real_vectors(int n, const double* wi, const double* v, zcomplex* out) {
  for (int j = 0; j < n; ++j) {
    const double* re = v + int64_t{j} * n;
    zcomplex* col = out + int64_t{j} * n;
    if (wi[j] == 0 || j + 1 == n) {
      for (int i = 0; i < n; ++i) col[i] = re[i];
      continue;
    }
    const double* im = re + n;
    for (int i = 0; i < n; ++i) {
      col[i] = zcomplex(re[i], im[i]);
      col[n + i] = zcomplex(re[i], -im[i]);
    }
    ++j;
  }
}

size_t square(int n) { return std::max<size_t>(1, static_cast<size_t>(n) * n); }

template <class W>
struct GeevCall;

template <>
struct GeevCall<double> {
  int n, lwork = -1;
  char jobvl, jobvr;
  std::vector<double> a, wr, wi, vl, vr, work{0.0};
  std::vector<zcomplex> values, left, right;
  GeevCall(int size, bool l, bool r)
      : n(size),
        jobvl(l ? 'V' : 'N'),
        jobvr(r ? 'V' : 'N'),
        a(square(n)),
        wr(n),
        wi(n),
        vl(square(n)),
        vr(square(n)),
        values(n),
        left(square(n)),
        right(square(n)) {
    run();
    lwork = work_size(work[0]);
    work.assign(static_cast<size_t>(lwork), 0.0);
  }
  int run() {
    int info = 0;
    dgeev_(&jobvl, &jobvr, &n, a.data(), &n, wr.data(), wi.data(), vl.data(), &n, vr.data(), &n,
           work.data(), &lwork, &info, 1, 1);
    if (lwork < 0 || info != 0) return info;
    for (int j = 0; j < n; ++j) values[j] = zcomplex(wr[j], wi[j]);
    if (jobvl == 'V') unpack_real_vectors(n, wi.data(), vl.data(), left.data());
    if (jobvr == 'V') unpack_real_vectors(n, wi.data(), vr.data(), right.data());
    return info;
  }
};

template <>
struct GeevCall<zcomplex> {
  int n, lwork = -1;
  char jobvl, jobvr;
  std::vector<zcomplex> a, values, left, right, work{zcomplex()};
  std::vector<double> rwork;
  GeevCall(int size, bool l, bool r)
      : n(size),
        jobvl(l ? 'V' : 'N'),
        jobvr(r ? 'V' : 'N'),
        a(square(n)),
        values(n),
        left(square(n)),
        right(square(n)),
        rwork(std::max(1, 2 * n)) {
    run();
    lwork = work_size(work[0]);
    work.assign(static_cast<size_t>(lwork), zcomplex());
  }
  int run() {
    int info = 0;
    zgeev_(&jobvl, &jobvr, &n, a.data(), &n, values.data(), left.data(), &n, right.data(), &n,
           work.data(), &lwork, rwork.data(), &info, 1, 1);
    return info;
  }
};

template <class C>
void fill_nan(C* p, int64_t count) {
  const auto nan = std::numeric_limits<typename C::value_type>::quiet_NaN();
  std::fill(p, p + count, C(nan, nan));
}

template <class T>
EigFactors eig_typed(const Tensor& dense, const Batch& b, bool left, bool right) {
  using C = std::complex<typename RealOf<T>::type>;
  const int n = b.n;
  const int64_t nn = int64_t{n} * n;
  const DType cd = complex_dtype(dense.dtype());
  EigFactors out{zeroed(cd, with_tail(b.lead, {n})), zeroed(cd, dense.shape()),
                 zeroed(cd, dense.shape()), zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  GeevCall<work_t<T>> call(n, left, right);
  const T* src = static_cast<const T*>(dense.data());
  C* values = static_cast<C*>(out.values.data());
  C* lv = static_cast<C*>(out.left.data());
  C* rv = static_cast<C*>(out.right.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    int32_t& info = static_cast<int32_t*>(out.info.data())[e];
    if (!all_finite(src + e * nn, nn)) {  // LAPACK's iterations are undefined on them
      info = -4;
      fill_nan(values + e * n, n);
      fill_nan(lv + e * nn, nn);
      fill_nan(rv + e * nn, nn);
      continue;
    }
    load(src + e * nn, n, n, call.a.data());
    info = call.run();
    store(call.values.data(), n, n, 1, values + e * n);
    if (left) store(call.left.data(), n, n, n, lv + e * nn);
    if (right) store(call.right.data(), n, n, n, rv + e * nn);
  }
  return out;
}

template <class W>
struct GeesCall;

template <>
struct GeesCall<double> {
  int n, lwork = -1;
  char jobvs;
  std::vector<double> a, wr, wi, vs, work{0.0};
  std::vector<zcomplex> values;
  GeesCall(int size, bool vectors)
      : n(size), jobvs(vectors ? 'V' : 'N'), a(square(n)), wr(n), wi(n), vs(square(n)), values(n) {
    run();
    lwork = work_size(work[0]);
    work.assign(static_cast<size_t>(lwork), 0.0);
  }
  int run() {
    const char sort = 'N';
    int sdim = 0, info = 0;
    dgees_(&jobvs, &sort, nullptr, &n, a.data(), &n, &sdim, wr.data(), wi.data(), vs.data(), &n,
           work.data(), &lwork, nullptr, &info, 1, 1);
    for (int j = 0; j < n; ++j) values[j] = zcomplex(wr[j], wi[j]);
    return info;
  }
};

template <>
struct GeesCall<zcomplex> {
  int n, lwork = -1;
  char jobvs;
  std::vector<zcomplex> a, values, vs, work{zcomplex()};
  std::vector<double> rwork;
  GeesCall(int size, bool vectors)
      : n(size),
        jobvs(vectors ? 'V' : 'N'),
        a(square(n)),
        values(n),
        vs(square(n)),
        rwork(std::max(1, n)) {
    run();
    lwork = work_size(work[0]);
    work.assign(static_cast<size_t>(lwork), zcomplex());
  }
  int run() {
    const char sort = 'N';
    int sdim = 0, info = 0;
    zgees_(&jobvs, &sort, nullptr, &n, a.data(), &n, &sdim, values.data(), vs.data(), &n,
           work.data(), &lwork, rwork.data(), nullptr, &info, 1, 1);
    return info;
  }
};

template <class T>
SchurFactors schur_typed(const Tensor& dense, const Batch& b, bool vectors) {
  using C = std::complex<typename RealOf<T>::type>;
  const int n = b.n;
  const int64_t nn = int64_t{n} * n;
  SchurFactors out{zeroed(dense.dtype(), dense.shape()), zeroed(dense.dtype(), dense.shape()),
                   zeroed(complex_dtype(dense.dtype()), with_tail(b.lead, {n})), zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  GeesCall<work_t<T>> call(n, vectors);
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * nn, n, n, call.a.data());
    static_cast<int32_t*>(out.info.data())[e] = call.run();
    store(call.a.data(), n, n, n, static_cast<T*>(out.t.data()) + e * nn);
    if (vectors) store(call.vs.data(), n, n, n, static_cast<T*>(out.vectors.data()) + e * nn);
    store(call.values.data(), n, n, 1, static_cast<C*>(out.values.data()) + e * n);
  }
  return out;
}

void gehrd(int n, int low, int high, double* a, double* tau, double* work, int lwork) {
  int info = 0;
  dgehrd_(&n, &low, &high, a, &n, tau, work, &lwork, &info);
}
void gehrd(int n, int low, int high, zcomplex* a, zcomplex* tau, zcomplex* work, int lwork) {
  int info = 0;
  zgehrd_(&n, &low, &high, a, &n, tau, work, &lwork, &info);
}

template <class T>
HessenbergFactors hessenberg_typed(const Tensor& dense, const Batch& b, int low, int high) {
  using W = work_t<T>;
  const int n = b.n;
  const int64_t nn = int64_t{n} * n;
  const int reflectors = std::max(n - 1, 0);
  HessenbergFactors out{zeroed(dense.dtype(), dense.shape()),
                        zeroed(dense.dtype(), with_tail(b.lead, {reflectors})), zero_info(b)};
  if (n == 0 || b.count == 0) return out;
  std::vector<W> a(square(n)), tau(std::max(1, reflectors)), work(1);
  gehrd(n, low, high, a.data(), tau.data(), work.data(), -1);
  const int lwork = work_size(work[0]);
  work.assign(static_cast<size_t>(lwork), W{});
  const T* src = static_cast<const T*>(dense.data());
  for (int64_t e = 0; e < b.count; ++e) {
    check_interrupt();
    load(src + e * nn, n, n, a.data());
    gehrd(n, low, high, a.data(), tau.data(), work.data(), lwork);
    store(a.data(), n, n, n, static_cast<T*>(out.packed.data()) + e * nn);
    store(tau.data(), reflectors, reflectors, 1, static_cast<T*>(out.tau.data()) + e * reflectors);
  }
  return out;
}

}  // namespace
}  // namespace linalg

EigFactors eig_factor(const Tensor& a, bool left, bool right) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::eig_typed<decltype(tag)>(dense, b, left, right); });
}

SchurFactors schur_factor(const Tensor& a, bool vectors) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(
      a.dtype(), [&](auto tag) { return linalg::schur_typed<decltype(tag)>(dense, b, vectors); });
}

HessenbergFactors hessenberg_factor(const Tensor& a, int low, int high) {
  const linalg::Batch b = linalg::square_batch(a.shape());
  if (b.n > 0 && !(1 <= low && low <= high && high <= b.n)) {
    fail(ErrorKind::kInvalidArgument,
         "the rows low = " + std::to_string(low) + " and high = " + std::to_string(high) +
             " must satisfy 1 <= low <= " + "high <= n (n = " + std::to_string(b.n) + ")");
  }
  const Tensor dense = make_dense(to_host(a), Order::kRowMajor);
  return linalg::dispatch_float(a.dtype(), [&](auto tag) {
    return linalg::hessenberg_typed<decltype(tag)>(dense, b, low, high);
  });
}

DType complex_dtype(DType dtype) {
  if (dtype == DType::kF32) return DType::kC64;
  if (dtype == DType::kF64) return DType::kC128;
  return dtype;
}

}  // namespace ndbuf::program
