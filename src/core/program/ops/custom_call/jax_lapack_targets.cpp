// The LAPACK targets JAX's CPU export lowers jnp.linalg to, with jaxlib's typed-FFI
// conventions: lapack_<t><routine>_ffi, t = s, d, c, z for f32, f64, c64, c128. Operands are
// matrices [..., m, n] (the leading dims a batch); k = min(m, n); info outputs are i32 [...]
// holding LAPACK's info for each matrix (JAX masks failed results itself). Attributes come
// from mhlo.backend_config: uplo ('L' = 76 / 'U' = 85) and mode (a LAPACK job letter).
//   getrf(a)        -> (lu, ipiv [..., k] i32 1-based, info)
//   geqrf(a)        -> (packed, tau [..., k])
//   orgqr / ungqr(a [..., m, n], tau [..., r]) -> q [..., m, n] (n <= m, r <= n)
//   potrf(a) {uplo} -> (factor, info)        the other triangle keeps the operand's values
//   gesdd(a) {mode} -> (a_out, s [..., k], u, vt, info); mode 'A' (u [m, m], vt [n, n]) or
//                      'S' (u [m, k], vt [k, n]); 'N' computes s only (u and vt are zeros);
//                      a_out, which LAPACK leaves undefined, is zeros
//   syevd / heevd(a) {mode, uplo} -> (vectors, w [..., n], info)
//   trsm(a [..., k, k], b [..., m, n], alpha [] optional) {side, uplo, trans_x, diag}
//                   -> x [..., m, n] solving op(a) x = alpha b (side 'L', k = m) or
//                      x op(a) = alpha b ('R', k = n); op is trans_x: 'N', 'T' or 'C'.
//                      JAX aliases x to b (output_operand_aliases); ours is a fresh buffer.
#include <algorithm>
#include <complex>
#include <cstring>
#include <iterator>

#include "ndbuf/memory/transfer.hpp"
#include "program/ops/custom_call/jax_lapack_common.hpp"
#include "program/ops/linalg/linalg.hpp"
#include "program/ops/linalg/linalg_triangular.hpp"

namespace ndbuf::program {
namespace {

using namespace jax_lapack;

CustomCallKernel bind_getrf(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 3);
  const Shape& s = matrix_operand(site, 0, dtype);
  const Shape lead = lead_of(s);
  const int64_t m = s[s.size() - 2], n = s.back();
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, DType::kI32, tail(lead, {std::min(m, n)}));
  expect_site_result(site, 2, DType::kI32, lead);
  return [](const std::vector<Tensor>& args) {
    LuFactors f = lu_factor(args[0]);
    return std::vector<Tensor>{f.lu, f.pivots, f.info};
  };
}

CustomCallKernel bind_geqrf(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 2);
  const Shape& s = matrix_operand(site, 0, dtype);
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, dtype, tail(lead_of(s), {std::min(s[s.size() - 2], s.back())}));
  return [](const std::vector<Tensor>& args) {
    QrFactors f = qr_factor(args[0]);
    return std::vector<Tensor>{f.packed, f.tau};
  };
}

CustomCallKernel bind_orgqr(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 2, 1);
  const Shape& s = matrix_operand(site, 0, dtype);
  const TensorType& tau = site.operands[1];
  const int64_t m = s[s.size() - 2], n = s.back();
  if (n > m || tau.dtype != dtype || tau.shape.size() + 1 != s.size() ||
      Shape(tau.shape.begin(), tau.shape.end() - 1) != lead_of(s) || tau.shape.back() > n) {
    fail(ErrorKind::kInvalidArgument,
         "takes reflectors [..., m, n] with n <= m and tau [..., r] with r <= n, not " +
             tensor_type_to_string(site.operands[0]) + " and " + tensor_type_to_string(tau));
  }
  expect_site_result(site, 0, dtype, s);
  return [n](const std::vector<Tensor>& args) {
    return std::vector<Tensor>{qr_q(args[0], args[1], n)};
  };
}

CustomCallKernel bind_potrf(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 2);
  const Shape& s = matrix_operand(site, 0, dtype);
  if (s[s.size() - 2] != s.back()) fail(ErrorKind::kInvalidArgument, "takes square matrices");
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, DType::kI32, lead_of(s));
  const bool lower = letter_attribute(site, "uplo", "LU", 'L') == 'L';
  return [lower](const std::vector<Tensor>& args) {
    CholeskyFactor f = cholesky_factor(args[0], lower);
    return std::vector<Tensor>{f.factor, f.info};
  };
}

CustomCallKernel bind_gesdd(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 5);
  const Shape& s = matrix_operand(site, 0, dtype);
  const Shape lead = lead_of(s);
  const int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n);
  const char mode = letter_attribute(site, "mode", "ASN", 'S');
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, real_dtype(dtype), tail(lead, {k}));
  if (mode != 'N') {
    expect_site_result(site, 2, dtype, tail(lead, {m, mode == 'A' ? m : k}));
    expect_site_result(site, 3, dtype, tail(lead, {mode == 'A' ? n : k, n}));
  }
  expect_site_result(site, 4, DType::kI32, lead);
  const TensorType u = site.results[2], vt = site.results[3];
  return [mode, dtype, s, u, vt](const std::vector<Tensor>& args) {
    SvdFactors f = svd_factor(args[0], mode == 'A');
    if (mode == 'N') {
      f.u = zeros(u.dtype, u.shape);
      f.vt = zeros(vt.dtype, vt.shape);
    }
    return std::vector<Tensor>{zeros(dtype, s), f.s, f.u, f.vt, f.info};
  };
}

CustomCallKernel bind_syevd(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 3);
  const Shape& s = matrix_operand(site, 0, dtype);
  if (s[s.size() - 2] != s.back()) fail(ErrorKind::kInvalidArgument, "takes square matrices");
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, real_dtype(dtype), tail(lead_of(s), {s.back()}));
  expect_site_result(site, 2, DType::kI32, lead_of(s));
  letter_attribute(site, "mode", "VN", 'V');  // vectors are computed either way
  const bool lower = letter_attribute(site, "uplo", "LU", 'L') == 'L';
  return [lower](const std::vector<Tensor>& args) {
    EighFactors f = eigh_factor(args[0], lower);
    return std::vector<Tensor>{f.vectors, f.values, f.info};
  };
}

// x * alpha, in place (x is the fresh dense result of triangular_solve()).
template <class T>
void scale_by(Tensor& x, const Tensor& alpha) {
  const T a = *static_cast<const T*>(make_dense(alpha, Order::kRowMajor).data());
  if (a == T(1)) return;
  T* v = static_cast<T*>(x.data());
  for (int64_t k = 0; k < x.numel(); ++k) v[k] *= a;
}

void scale_by_alpha(Tensor& x, const Tensor& alpha) {
  switch (x.dtype()) {
    case DType::kF32:
      return scale_by<float>(x, alpha);
    case DType::kF64:
      return scale_by<double>(x, alpha);
    case DType::kC64:
      return scale_by<std::complex<float>>(x, alpha);
    default:
      return scale_by<std::complex<double>>(x, alpha);
  }
}

CustomCallKernel bind_trsm(const CustomCallSite& site, DType dtype) {
  const size_t count = site.operands.size();
  if (count != 2 && count != 3) {
    fail(ErrorKind::kInvalidArgument,
         "takes 2 or 3 operands (a, b and an optional alpha), not " + std::to_string(count));
  }
  expect_site_counts(site, count, 1);
  const Shape& a = matrix_operand(site, 0, dtype);
  const Shape& b = matrix_operand(site, 1, dtype);
  if (count == 3 && (site.operands[2].dtype != dtype || !site.operands[2].shape.empty())) {
    fail(ErrorKind::kInvalidArgument, "operand 3 (alpha) must be a 0-d " +
                                          std::string(dtype_name(dtype)) + " tensor, not " +
                                          tensor_type_to_string(site.operands[2]));
  }
  TriangularSolveOptions o;
  o.left_side = required_letter(site, "side", "LR") == 'L';
  o.lower = required_letter(site, "uplo", "LU") == 'L';
  const char t = required_letter(site, "trans_x", "NTC");
  o.transpose_a =
      t == 'N' ? Transpose::kNone : (t == 'T' ? Transpose::kTranspose : Transpose::kAdjoint);
  o.unit_diagonal = required_letter(site, "diag", "NU") == 'U';
  const std::string problem = triangular_solve_problem(a, b, o.left_side);
  if (!problem.empty()) {
    fail(ErrorKind::kInvalidArgument, problem + ", not " + tensor_type_to_string(site.operands[0]) +
                                          " and " + tensor_type_to_string(site.operands[1]));
  }
  expect_site_result(site, 0, dtype, b);
  return [o](const std::vector<Tensor>& args) {
    Tensor x = triangular_solve(args[0], args[1], o);
    if (args.size() == 3) scale_by_alpha(x, args[2]);
    return std::vector<Tensor>{x};
  };
}

constexpr Routine kRoutines[] = {
    {"getrf", "getrf", bind_getrf}, {"geqrf", "geqrf", bind_geqrf}, {"orgqr", "ungqr", bind_orgqr},
    {"potrf", "potrf", bind_potrf}, {"gesdd", "gesdd", bind_gesdd}, {"syevd", "heevd", bind_syevd},
    {"trsm", "trsm", bind_trsm},
};

}  // namespace

std::vector<BuiltinTarget> jax_lapack_targets() {
  return jax_lapack::lapack_targets(kRoutines, std::size(kRoutines));
}

}  // namespace ndbuf::program
