// jaxlib's LAPACK targets for general and tridiagonal matrices (linalg.hpp computes them):
//   geev(a) {compute_left, compute_right: 'V' or 'N'}
//       real:    -> (wr [..., n], wi [..., n], vl [..., n, n] complex, vr complex, info)
//       complex: -> (w [..., n], vl, vr, info)
//     eigenvectors unpacked into complex columns; info -4 marks a matrix with a non-finite entry
//   gees(a) {mode: 'V' or 'N', sort: 'N'}
//       real:    -> (t, vs, wr [..., n], wi [..., n], sdim [...], info [...])
//       complex: -> (t, vs, w [..., n], sdim, info); sdim is 0 (nothing is sorted)
//   gehrd(a) {low, high: LAPACK's 1-based ilo, ihi} -> (packed, tau [..., n - 1], info)
//   sytrd / hetrd(a) {uplo} -> (packed, d [..., n] real, e [..., n - 1] real, tau [..., n - 1],
//                               info)
//   gtsv(dl, d, du [..., n], b [..., n, k]) -> (dl, d, du, x [..., n, k], info); dl[0] and
//       du[n - 1] are not read
// JAX marks the first results as aliases of the operands (output_operand_aliases); results
// here are fresh buffers, which a caller cannot tell apart.
#include <complex>
#include <iterator>

#include "program/ops/custom_call/jax_lapack_common.hpp"
#include "program/ops/linalg/linalg.hpp"

namespace ndbuf::program {
namespace {

using namespace jax_lapack;

const Shape& square_operand(const CustomCallSite& site, DType dtype) {
  const Shape& s = matrix_operand(site, 0, dtype);
  if (s[s.size() - 2] != s.back()) fail(ErrorKind::kInvalidArgument, "takes square matrices");
  return s;
}

template <class R>
std::vector<Tensor> split_parts(const Tensor& values) {
  const Tensor re =
      zeros(values.dtype() == DType::kC64 ? DType::kF32 : DType::kF64, values.shape());
  const Tensor im = zeros(re.dtype(), values.shape());
  const auto* v = static_cast<const std::complex<R>*>(values.data());
  for (int64_t k = 0; k < values.numel(); ++k) {
    static_cast<R*>(re.data())[k] = v[k].real();
    static_cast<R*>(im.data())[k] = v[k].imag();
  }
  return {re, im};
}

// A real routine's eigenvalues as its real and imaginary parts; a complex one's as they are.
std::vector<Tensor> eigenvalue_results(const Tensor& values, DType operand) {
  if (is_complex(operand)) return {values};
  return values.dtype() == DType::kC64 ? split_parts<float>(values) : split_parts<double>(values);
}

void expect_eigenvalue_results(const CustomCallSite& site, size_t first, DType dtype,
                               const Shape& lead, int64_t n) {
  if (is_complex(dtype)) return expect_site_result(site, first, dtype, tail(lead, {n}));
  expect_site_result(site, first, dtype, tail(lead, {n}));
  expect_site_result(site, first + 1, dtype, tail(lead, {n}));
}

CustomCallKernel bind_geev(const CustomCallSite& site, DType dtype) {
  const size_t values = is_complex(dtype) ? 1 : 2;
  expect_site_counts(site, 1, values + 3);
  const Shape& s = square_operand(site, dtype);
  const Shape lead = lead_of(s);
  expect_eigenvalue_results(site, 0, dtype, lead, s.back());
  expect_site_result(site, values, complex_dtype(dtype), s);
  expect_site_result(site, values + 1, complex_dtype(dtype), s);
  expect_site_result(site, values + 2, DType::kI32, lead);
  const bool left = letter_attribute(site, "compute_left", "VN", 'V') == 'V';
  const bool right = letter_attribute(site, "compute_right", "VN", 'V') == 'V';
  return [dtype, left, right](const std::vector<Tensor>& args) {
    EigFactors f = eig_factor(args[0], left, right);
    std::vector<Tensor> out = eigenvalue_results(f.values, dtype);
    for (const Tensor& t : {f.left, f.right, f.info}) out.push_back(t);
    return out;
  };
}

CustomCallKernel bind_gees(const CustomCallSite& site, DType dtype) {
  const size_t values = is_complex(dtype) ? 1 : 2;
  expect_site_counts(site, 1, values + 4);
  const Shape& s = square_operand(site, dtype);
  const Shape lead = lead_of(s);
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, dtype, s);
  expect_eigenvalue_results(site, 2, dtype, lead, s.back());
  expect_site_result(site, values + 2, DType::kI32, lead);
  expect_site_result(site, values + 3, DType::kI32, lead);
  const bool vectors = letter_attribute(site, "mode", "VN", 'V') == 'V';
  if (letter_attribute(site, "sort", "NS", 'N') != 'N') {
    fail(ErrorKind::kInvalidArgument, "sorting the eigenvalues (sort = 'S') is not supported");
  }
  return [dtype, vectors, lead](const std::vector<Tensor>& args) {
    SchurFactors f = schur_factor(args[0], vectors);
    std::vector<Tensor> out{f.t, f.vectors};
    for (const Tensor& t : eigenvalue_results(f.values, dtype)) out.push_back(t);
    out.push_back(zeros(DType::kI32, lead));
    out.push_back(f.info);
    return out;
  };
}

int64_t integer_attribute(const CustomCallSite& site, const char* name) {
  const CustomCallAttribute* a = site.attribute(name);
  if (a == nullptr || a->kind != CustomCallAttribute::Kind::kInt) {
    fail(ErrorKind::kInvalidArgument, "needs the integer attribute '" + std::string(name) + "'");
  }
  return a->integer;
}

CustomCallKernel bind_gehrd(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 3);
  const Shape& s = square_operand(site, dtype);
  const int64_t n = s.back();
  const int64_t low = integer_attribute(site, "low"), high = integer_attribute(site, "high");
  if (n > 0 && !(1 <= low && low <= high && high <= n)) {
    fail(ErrorKind::kInvalidArgument,
         "low = " + std::to_string(low) + " and high = " + std::to_string(high) +
             " must satisfy 1 <= low <= " + "high <= " + std::to_string(n));
  }
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, dtype, tail(lead_of(s), {n > 0 ? n - 1 : 0}));
  expect_site_result(site, 2, DType::kI32, lead_of(s));
  return [low, high](const std::vector<Tensor>& args) {
    HessenbergFactors f = hessenberg_factor(args[0], static_cast<int>(low), static_cast<int>(high));
    return std::vector<Tensor>{f.packed, f.tau, f.info};
  };
}

CustomCallKernel bind_sytrd(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 1, 5);
  const Shape& s = square_operand(site, dtype);
  const Shape lead = lead_of(s);
  const int64_t n = s.back(), m = n > 0 ? n - 1 : 0;
  expect_site_result(site, 0, dtype, s);
  expect_site_result(site, 1, real_dtype(dtype), tail(lead, {n}));
  expect_site_result(site, 2, real_dtype(dtype), tail(lead, {m}));
  expect_site_result(site, 3, dtype, tail(lead, {m}));
  expect_site_result(site, 4, DType::kI32, lead);
  const bool lower = letter_attribute(site, "uplo", "LU", 'L') == 'L';
  return [lower](const std::vector<Tensor>& args) {
    TridiagonalFactors f = tridiagonal_factor(args[0], lower);
    return std::vector<Tensor>{f.packed, f.diagonal, f.offdiagonal, f.tau, f.info};
  };
}

CustomCallKernel bind_gtsv(const CustomCallSite& site, DType dtype) {
  expect_site_counts(site, 4, 5);
  const Shape& b = matrix_operand(site, 3, dtype);
  const Shape diagonal = tail(lead_of(b), {b[b.size() - 2]});
  for (size_t k = 0; k < 3; ++k) {
    const TensorType& t = site.operands[k];
    if (t.dtype != dtype || t.shape != diagonal) {
      fail(ErrorKind::kInvalidArgument,
           "operand " + std::to_string(k + 1) + " (a diagonal) must be " +
               tensor_type_to_string(TensorType{dtype, diagonal}) + " to match " +
               tensor_type_to_string(site.operands[3]) + ", not " + tensor_type_to_string(t));
    }
    expect_site_result(site, k, dtype, diagonal);
  }
  expect_site_result(site, 3, dtype, b);
  expect_site_result(site, 4, DType::kI32, lead_of(b));
  return [](const std::vector<Tensor>& args) {
    TridiagonalSolution f = tridiagonal_solve(args[0], args[1], args[2], args[3]);
    return std::vector<Tensor>{f.dl, f.d, f.du, f.x, f.info};
  };
}

constexpr Routine kRoutines[] = {
    {"geev", "geev", bind_geev},    {"gees", "gees", bind_gees}, {"gehrd", "gehrd", bind_gehrd},
    {"sytrd", "hetrd", bind_sytrd}, {"gtsv", "gtsv", bind_gtsv},
};

}  // namespace

std::vector<BuiltinTarget> jax_lapack_general_targets() {
  return jax_lapack::lapack_targets(kRoutines, std::size(kRoutines));
}

}  // namespace ndbuf::program
