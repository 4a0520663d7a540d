// Unary kernels over f16, bf16, f32 and f64 (the 16-bit types compute in float, round once).
#include <cmath>
#include <limits>
#include <type_traits>

#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_math.hpp"
#include "program/ops/elementwise/float_functions.hpp"
#include "program/ops/elementwise/special_functions.hpp"
#include "program/ops/elementwise/vector_math.hpp"

namespace ndbuf::program::detail {
namespace {

// sign: NaN stays NaN, +-0 keeps its sign, otherwise +-1 (spec).
template <class C>
C float_sign(C v) {
  if (std::isnan(v) || v == 0) return v;
  return v < 0 ? C(-1) : C(1);
}

// The predicates and real / imag: results of another dtype.
template <class T>
Tensor float_unary_other(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using C = Compute<T>;
  const auto pred = [&](auto f) { return map_unary<uint8_t, T>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kIsFinite:
      return pred([](C v) { return std::isfinite(v); });
    case UnaryOp::kIsInf:
      return pred([](C v) { return std::isinf(v); });
    case UnaryOp::kIsPosInf:
      return pred([](C v) { return v == std::numeric_limits<C>::infinity(); });
    case UnaryOp::kIsNegInf:
      return pred([](C v) { return v == -std::numeric_limits<C>::infinity(); });
    case UnaryOp::kImag:
      return map_unary<T, T>(x, out, memory, [](C) { return C(0); });
    default:
      break;
  }
  // kReal and kConj (a real number is its own conjugate); kAbs never reaches here.
  return map_unary<T, T>(x, out, memory, [](C v) { return v; });
}

// Rounding and the special functions.
template <class T>
Tensor float_unary_special(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using C = Compute<T>;
  const auto same = [&](auto f) { return map_unary<T, T>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kFloor:
      return same([](C v) { return std::floor(v); });
    case UnaryOp::kCeil:
      return same([](C v) { return std::ceil(v); });
    // nearbyint rounds in the current mode, which is to nearest, ties to even (never changed
    // by this library).
    case UnaryOp::kRoundNearestEven:
      return same([](C v) { return std::nearbyint(v); });
    case UnaryOp::kRoundNearestAfz:
      return same([](C v) { return std::round(v); });
    case UnaryOp::kErf:
      return same([](C v) { return std::erf(v); });
    case UnaryOp::kErfc:
      return same([](C v) { return std::erfc(v); });
    case UnaryOp::kErfInv:
      return same([](C v) { return static_cast<C>(erf_inv(v)); });
    case UnaryOp::kDigamma:
      return same([](C v) { return static_cast<C>(digamma(v)); });
    case UnaryOp::kBesselI1e:
      return same([](C v) { return static_cast<C>(bessel_i1e(v)); });
    // std::lgamma writes the global `signgam` on common C libraries: one thread only.
    case UnaryOp::kLgamma:
      return map_unary<T, T>(
          x, out, memory, [](C v) { return std::lgamma(v); }, true);
    default:
      break;
  }
  return float_unary_other<T>(op, x, out, memory);
}

// The trigonometric and hyperbolic functions and their inverses.
template <class T>
Tensor float_unary_trig(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using C = Compute<T>;
  const auto same = [&](auto f) { return map_unary<T, T>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kSine:
      return same([](C v) { return std::sin(v); });
    case UnaryOp::kCosine:
      return same([](C v) { return std::cos(v); });
    case UnaryOp::kTan:
      return same([](C v) { return std::tan(v); });
    case UnaryOp::kTanh:
      return same(TanhFn{});
    case UnaryOp::kSinh:
      return same([](C v) { return std::sinh(v); });
    case UnaryOp::kCosh:
      return same([](C v) { return std::cosh(v); });
    case UnaryOp::kAsin:
      return same([](C v) { return std::asin(v); });
    case UnaryOp::kAcos:
      return same([](C v) { return std::acos(v); });
    case UnaryOp::kAtan:
      return same([](C v) { return std::atan(v); });
    case UnaryOp::kAsinh:
      return same([](C v) { return std::asinh(v); });
    case UnaryOp::kAcosh:
      return same([](C v) { return std::acosh(v); });
    case UnaryOp::kAtanh:
      return same([](C v) { return std::atanh(v); });
    default:
      break;
  }
  return float_unary_special<T>(op, x, out, memory);
}

// Arithmetic, powers, exponentials and logarithms; other ops pass down the chain above.
template <class T>
Tensor float_unary_same(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  using C = Compute<T>;
  const auto same = [&](auto f) { return map_unary<T, T>(x, out, memory, f); };
  switch (op) {
    case UnaryOp::kNegate:
      return same(NegateFn{});
    case UnaryOp::kAbs:
      return same(AbsFn{});
    case UnaryOp::kSign:
      return same([](C v) { return float_sign(v); });
    case UnaryOp::kSquare:
      return same(SquareFn{});
    case UnaryOp::kExponential:
      return same(ExpFn{});
    case UnaryOp::kExponentialMinusOne:
      return same([](C v) { return std::expm1(v); });
    case UnaryOp::kLog:
      return same(LogFn{});
    case UnaryOp::kLogPlusOne:
      return same([](C v) { return std::log1p(v); });
    case UnaryOp::kLogistic:
      return same(LogisticFn{});
    case UnaryOp::kSqrt:
      return same(SqrtFn{});
    case UnaryOp::kRsqrt:
      return same(RsqrtFn{});
    case UnaryOp::kCbrt:
      return same([](C v) { return std::cbrt(v); });
    default:
      break;
  }
  return float_unary_trig<T>(op, x, out, memory);
}

}  // namespace

Tensor unary_float(UnaryOp op, const Tensor& x, DType out, ResultMemory& memory) {
  return dispatch(x.dtype(), [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (const SpanUnaryFn<T> f = vector_unary<T>(op)) return map_span_unary<T>(f, x, memory);
    }
    if constexpr (std::is_same_v<T, float>) {
      if (op == UnaryOp::kTanh) return tanh_f32(x, memory);
    }
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      SpanUnaryFn<float> f = vector_unary<float>(op);
      if (op == UnaryOp::kTanh) f = tanh_span_f32;
      if (f != nullptr) return map_narrow_span_unary(f, x, memory);
    }
    if constexpr (kIsFloat<T>) {
      return float_unary_same<T>(op, x, out, memory);
    } else {
      fail_dtype(op_name(op), x.dtype());
    }
  });
}

}  // namespace ndbuf::program::detail
