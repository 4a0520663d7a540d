// Binary kernels over the float types (16-bit ones compute in float, round once) and complex.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_math.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"
#include "program/ops/elementwise/float_functions.hpp"
#include "program/ops/elementwise/special_functions.hpp"
#include "program/ops/elementwise/vector_math.hpp"

namespace ndbuf::program::detail {
namespace {

// The f8 value after u (an f8 value, widened) toward v: one step of the sign-magnitude code
// (past the largest finite value that is Inf for f8E5M2 and NaN for f8E4M3FN).
template <class T>
float next_after_8bit(float u, float v) {
  if (std::isnan(u) || std::isnan(v)) return std::numeric_limits<float>::quiet_NaN();
  if (u == v) return v;
  auto bits = narrow_float_from_double<T>(u).bits;
  if (u == 0) {
    bits = v > 0 ? 0x01 : 0x81;
  } else if ((v > u) == (u > 0)) {
    ++bits;
  } else {
    --bits;
  }
  return static_cast<float>(to_double(T{static_cast<uint8_t>(bits)}));
}

template <class T>
Tensor float_binary(BinaryOp op, const Tensor& a, const Tensor& b, DType out,
                    ResultMemory& memory) {
  using C = Compute<T>;
  const auto same = [&](auto f) { return map_binary<T, T>(a, b, out, memory, f); };
  switch (op) {
    case BinaryOp::kAdd:
      return same(AddFn{});
    case BinaryOp::kSubtract:
      return same(SubtractFn{});
    case BinaryOp::kMultiply:
      return same(MultiplyFn{});
    case BinaryOp::kDivide:
      return same(DivideFn{});
    // fmod: lhs - trunc(lhs / rhs) * rhs computed exactly, the sign of the dividend (spec).
    case BinaryOp::kRemainder:
      return same([](C u, C v) { return std::fmod(u, v); });
    case BinaryOp::kPower:
      return same([](C u, C v) { return std::pow(u, v); });
    case BinaryOp::kMaximum:
      return same(MaximumFn{});
    case BinaryOp::kMinimum:
      return same(MinimumFn{});
    case BinaryOp::kAtan2:
      return same([](C u, C v) { return std::atan2(u, v); });
    case BinaryOp::kPolygamma:
      return same([](C n, C x) { return static_cast<C>(polygamma(n, x)); });
    case BinaryOp::kZeta:
      return same([](C x, C q) { return static_cast<C>(hurwitz_zeta(x, q)); });
    // The next value of T itself: f16, bf16 and f8 step through their own bit patterns.
    case BinaryOp::kNextAfter:
      return same([](C u, C v) {
        if constexpr (std::is_same_v<C, T>) {
          return std::nextafter(u, v);
        } else if constexpr (sizeof(T) == 1) {
          return next_after_8bit<T>(u, v);
        } else {
          return static_cast<C>(next_after_16(u, v, std::is_same_v<T, BFloat16>));
        }
      });
    default:
      break;
  }
  // kComplex: the parts become one complex element.
  using Z = std::complex<C>;
  return map_binary<Z, T>(a, b, out, memory, [](C u, C v) { return Z(u, v); });
}

template <class R>
Tensor complex_binary(BinaryOp op, const Tensor& a, const Tensor& b, ResultMemory& memory) {
  using Z = std::complex<R>;
  const auto same = [&](auto f) { return map_binary<Z, Z>(a, b, a.dtype(), memory, f); };
  switch (op) {
    case BinaryOp::kAdd:
      return same([](Z u, Z v) { return u + v; });
    case BinaryOp::kSubtract:
      return same([](Z u, Z v) { return u - v; });
    case BinaryOp::kMultiply:
      return same([](Z u, Z v) { return u * v; });
    case BinaryOp::kDivide:
      return same([](Z u, Z v) { return u / v; });
    case BinaryOp::kPower:
      return same([](Z u, Z v) { return std::pow(u, v); });
    case BinaryOp::kAtan2:
      return same([](Z u, Z v) { return complex_atan2(u, v); });
    // Lexicographic (real, imag) order; ties keep the left operand.
    case BinaryOp::kMaximum:
      return same([](Z u, Z v) { return complex_less(u, v) ? v : u; });
    case BinaryOp::kMinimum:
      return same([](Z u, Z v) { return complex_less(v, u) ? v : u; });
    default:
      break;
  }
  fail_dtype(op_name(op), a.dtype());  // remainder and the bitwise ops
}

}  // namespace

Tensor binary_float(BinaryOp op, const Tensor& a, const Tensor& b, DType out,
                    ResultMemory& memory) {
  return dispatch(a.dtype(), [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const SpanBinaryFn<T> f = vector_binary<T>(op);
      if (f != nullptr && a.shape() == b.shape()) return map_span_binary<T>(f, a, b, memory);
    }
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      const SpanBinaryFn<float> f = vector_binary<float>(op);
      if (f != nullptr && a.shape() == b.shape()) return map_narrow_span_binary(f, a, b, memory);
    }
    if constexpr (kIsFloat<T>) {
      return float_binary<T>(op, a, b, out, memory);
    } else {
      fail_dtype(op_name(op), a.dtype());
    }
  });
}

Tensor binary_complex(BinaryOp op, const Tensor& a, const Tensor& b, ResultMemory& memory) {
  if (a.dtype() == DType::kC64) return complex_binary<float>(op, a, b, memory);
  return complex_binary<double>(op, a, b, memory);
}

}  // namespace ndbuf::program::detail
