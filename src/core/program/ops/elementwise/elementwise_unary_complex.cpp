// Unary kernels over c64 and c128: the analytic functions of std::complex plus the forms
// elementwise_math.hpp adds; abs / real / imag give the part type.
#include <complex>

#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_math.hpp"

namespace ndbuf::program::detail {
namespace {

template <class R>
Tensor complex_to_real(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using Z = std::complex<R>;
  switch (op) {
    case UnaryOp::kAbs:
      return map_unary<R, Z>(x, out, memory, [](Z v) { return std::abs(v); });
    case UnaryOp::kReal:
      return map_unary<R, Z>(x, out, memory, [](Z v) { return v.real(); });
    default:
      break;
  }
  return map_unary<R, Z>(x, out, memory, [](Z v) { return v.imag(); });  // kImag
}

template <class R>
Tensor complex_unary(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using Z = std::complex<R>;
  const auto same = [&](auto f) { return map_unary<Z, Z>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kNegate:
      return same([](Z v) { return -v; });
    case UnaryOp::kSign:
      return same([](Z v) { return complex_sign(v); });
    case UnaryOp::kSquare:
      return same([](Z v) { return v * v; });
    case UnaryOp::kExponential:
      return same([](Z v) { return std::exp(v); });
    case UnaryOp::kExponentialMinusOne:
      return same([](Z v) { return complex_expm1(v); });
    case UnaryOp::kLog:
      return same([](Z v) { return std::log(v); });
    case UnaryOp::kLogPlusOne:
      return same([](Z v) { return complex_log1p(v); });
    case UnaryOp::kLogistic:
      return same([](Z v) { return complex_logistic(v); });
    case UnaryOp::kSqrt:
      return same([](Z v) { return std::sqrt(v); });
    case UnaryOp::kRsqrt:
      return same([](Z v) { return R(1) / std::sqrt(v); });
    case UnaryOp::kCbrt:
      return same([](Z v) { return complex_cbrt(v); });
    case UnaryOp::kSine:
      return same([](Z v) { return std::sin(v); });
    case UnaryOp::kCosine:
      return same([](Z v) { return std::cos(v); });
    case UnaryOp::kTan:
      return same([](Z v) { return std::tan(v); });
    case UnaryOp::kTanh:
      return same([](Z v) { return std::tanh(v); });
    case UnaryOp::kSinh:
      return same([](Z v) { return std::sinh(v); });
    case UnaryOp::kCosh:
      return same([](Z v) { return std::cosh(v); });
    case UnaryOp::kAsin:
      return same([](Z v) { return std::asin(v); });
    case UnaryOp::kAcos:
      return same([](Z v) { return std::acos(v); });
    case UnaryOp::kAtan:
      return same([](Z v) { return std::atan(v); });
    case UnaryOp::kAsinh:
      return same([](Z v) { return std::asinh(v); });
    case UnaryOp::kAcosh:
      return same([](Z v) { return std::acosh(v); });
    case UnaryOp::kAtanh:
      return same([](Z v) { return std::atanh(v); });
    case UnaryOp::kConj:
      return same([](Z v) { return std::conj(v); });
    default:
      break;
  }
  return complex_to_real<R>(op, x, out, memory);
}

}  // namespace

Tensor unary_complex(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  if (x.dtype() == DType::kC64) return complex_unary<float>(op, x, out, memory);
  return complex_unary<double>(op, x, out, memory);
}

}  // namespace ndbuf::program::detail
