// The linear-algebra targets of upstream pjrt, which anvl lowers qr(), lu(), svd() and eigh()
// to: geqrf, orgqr, lu, svd and eigh. Each takes matrices [..., m, n] (leading dims a batch)
// of f32, f64, c64 or c128; k = min(m, n).
//   geqrf(a)           -> packed [..., m, n], tau [..., k]
//   orgqr(packed, tau) -> q [..., m, k]
//   lu(a)              -> lu [..., m, n], pivots [..., k] i32 (1-based, LAPACK's getrf)
//   svd(a)             -> u [..., m, k], s [..., k], vt [..., k, n]  (a = u diag(s) vt)
//   eigh(a)            -> vectors [..., n, n], values [..., n] (ascending; lower triangle read)
// s and values have the real dtype (f32 for c64, f64 for c128). Layout attributes change
// nothing here: the kernels read their operands through strides and the values are logical.
#include <algorithm>

#include "program/ops/custom_call/builtin_targets.hpp"
#include "program/ops/linalg/linalg.hpp"

namespace ndbuf::program {
namespace {

struct Matrices {
  DType dtype;
  Shape lead;
  int64_t m;
  int64_t n;
  int64_t k;
};

Shape tail(const Matrices& a, std::vector<int64_t> dims) {
  Shape s = a.lead;
  s.insert(s.end(), dims.begin(), dims.end());
  return s;
}

Matrices matrices(const CustomCallSite& site, size_t k) {
  const TensorType& t = site.operands[k];
  if (t.dtype != DType::kF32 && t.dtype != DType::kF64 && t.dtype != DType::kC64 &&
      t.dtype != DType::kC128) {
    fail(ErrorKind::kInvalidArgument, "operand " + std::to_string(k + 1) +
                                          " must have element type f32, f64, complex<f32> or "
                                          "complex<f64>, not " +
                                          tensor_type_to_string(t));
  }
  if (t.shape.size() < 2) {
    fail(ErrorKind::kInvalidArgument, "operand " + std::to_string(k + 1) +
                                          " must be matrices (rank 2 or more), not " +
                                          tensor_type_to_string(t));
  }
  const size_t r = t.shape.size();
  Matrices a{t.dtype, Shape(t.shape.begin(), t.shape.end() - 2), t.shape[r - 2], t.shape[r - 1], 0};
  a.k = std::min(a.m, a.n);
  return a;
}

CustomCallKernel bind_geqrf(const CustomCallSite& site) {
  expect_site_counts(site, 1, 2);
  const Matrices a = matrices(site, 0);
  expect_site_result(site, 0, a.dtype, tail(a, {a.m, a.n}));
  expect_site_result(site, 1, a.dtype, tail(a, {a.k}));
  return [](const std::vector<Tensor>& args) {
    QrFactors f = qr_factor(args[0]);
    return std::vector<Tensor>{f.packed, f.tau};
  };
}

CustomCallKernel bind_orgqr(const CustomCallSite& site) {
  expect_site_counts(site, 2, 1);
  const Matrices a = matrices(site, 0);
  const TensorType want{a.dtype, tail(a, {a.k})};
  if (site.operands[1].dtype != want.dtype || site.operands[1].shape != want.shape) {
    fail(ErrorKind::kInvalidArgument, "operand 2 (tau) should be " + tensor_type_to_string(want) +
                                          ", not " + tensor_type_to_string(site.operands[1]));
  }
  expect_site_result(site, 0, a.dtype, tail(a, {a.m, a.k}));
  return
      [](const std::vector<Tensor>& args) { return std::vector<Tensor>{qr_q(args[0], args[1])}; };
}

CustomCallKernel bind_lu(const CustomCallSite& site) {
  expect_site_counts(site, 1, 2);
  const Matrices a = matrices(site, 0);
  expect_site_result(site, 0, a.dtype, tail(a, {a.m, a.n}));
  expect_site_result(site, 1, DType::kI32, tail(a, {a.k}));
  return [](const std::vector<Tensor>& args) {
    LuFactors f = lu_factor(args[0]);
    return std::vector<Tensor>{f.lu, f.pivots};
  };
}

CustomCallKernel bind_svd(const CustomCallSite& site) {
  expect_site_counts(site, 1, 3);
  const Matrices a = matrices(site, 0);
  expect_site_result(site, 0, a.dtype, tail(a, {a.m, a.k}));
  expect_site_result(site, 1, real_dtype(a.dtype), tail(a, {a.k}));
  expect_site_result(site, 2, a.dtype, tail(a, {a.k, a.n}));
  return [](const std::vector<Tensor>& args) {
    SvdFactors f = svd_factor(args[0]);
    expect_converged(f.info, "the singular value decomposition");
    return std::vector<Tensor>{f.u, f.s, f.vt};
  };
}

CustomCallKernel bind_eigh(const CustomCallSite& site) {
  expect_site_counts(site, 1, 2);
  const Matrices a = matrices(site, 0);
  if (a.m != a.n) {
    fail(ErrorKind::kInvalidArgument,
         "operand 1 must be square matrices, not " + tensor_type_to_string(site.operands[0]));
  }
  expect_site_result(site, 0, a.dtype, tail(a, {a.n, a.n}));
  expect_site_result(site, 1, real_dtype(a.dtype), tail(a, {a.n}));
  return [](const std::vector<Tensor>& args) {
    EighFactors f = eigh_factor(args[0], true);
    expect_converged(f.info, "the eigen-decomposition");
    return std::vector<Tensor>{f.vectors, f.values};
  };
}

}  // namespace

std::vector<BuiltinTarget> linalg_targets() {
  return {{"geqrf", bind_geqrf},
          {"orgqr", bind_orgqr},
          {"lu", bind_lu},
          {"svd", bind_svd},
          {"eigh", bind_eigh}};
}

}  // namespace ndbuf::program
