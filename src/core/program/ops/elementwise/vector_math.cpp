// Picks the SLEEF spans of vector_math.hpp for this CPU: AVX2 with FMA where the CPU has both
// (vector_math_avx2.cpp), else SSE2 (built here: x86-64's baseline). logistic is composed here
// from the vector exp.
#include "program/ops/elementwise/vector_math.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "program/ops/elementwise/vector_math_isa.hpp"

#ifdef NDBUF_HAVE_SLEEF
#define NDBUF_LANES_F32 SseF32
#define NDBUF_LANES_F64 SseF64
#define NDBUF_SLEEF_F32(fn, ulp) Sleef_##fn##f4_##ulp##sse2
#define NDBUF_SLEEF_F64(fn, ulp) Sleef_##fn##d2_##ulp##sse2
#include "program/ops/elementwise/vector_lanes.hpp"
#endif

namespace ndbuf::program {
namespace {

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

const detail::VectorMathSet* active_set() {
#ifdef NDBUF_HAVE_SLEEF
  static const detail::VectorMathSet* const set = [] {
    const detail::VectorMathSet* avx2 = detail::vector_math_avx2();
    return avx2 != nullptr && cpu_has_avx2_fma() ? avx2 : &detail::kSleefSet;
  }();
  return set;
#else
  return nullptr;
#endif
}

// Where SLEEF's functions leave their error bound (their documented domains, and f32 erf just
// above the smallest normal number): those elements are computed by libm, decided by the
// element's value alone.
template <class T>
bool outside_domain(UnaryOp op, T x) {
  constexpr bool f32 = std::is_same_v<T, float>;
  const T a = std::fabs(x);
  switch (op) {
    case UnaryOp::kLogPlusOne:
      return x > (f32 ? T(1e38) : T(1e307));
    case UnaryOp::kSinh:
    case UnaryOp::kCosh:
      return a > (f32 ? T(88) : T(709));
    case UnaryOp::kAsinh:
    case UnaryOp::kAcosh:
      return a > (f32 ? T(1.8e19) : T(1.3e154));
    case UnaryOp::kErf:
      return f32 && a < T(1e-37) && a != 0;
    default:
      return false;
  }
}

template <class T>
T libm_wide(UnaryOp op, T x) {
  switch (op) {
    case UnaryOp::kLogPlusOne:
      return std::log1p(x);
    case UnaryOp::kSinh:
      return std::sinh(x);
    case UnaryOp::kCosh:
      return std::cosh(x);
    case UnaryOp::kAsinh:
      return std::asinh(x);
    case UnaryOp::kAcosh:
      return std::acosh(x);
    default:
      return std::erf(x);
  }
}

// f32 through double (glibc's sinhf is off by up to 1.3 ULP near overflow; the double result
// rounds to within half a ULP of the float one).
template <class T>
T libm_value(UnaryOp op, T value) {
  using Wide = std::conditional_t<std::is_same_v<T, float>, double, T>;
  const auto x = static_cast<Wide>(value);
  return static_cast<T>(libm_wide(op, x));
}

template <class T>
SpanUnaryFn<T> sleef_span(UnaryOp op) {
  const detail::VectorMathSet* set = active_set();
  if constexpr (std::is_same_v<T, float>) {
    return set->unary_f32(op);
  } else {
    return set->unary_f64(op);
  }
}

// The SLEEF span, then libm for the elements outside its domain (inputs kept per chunk, since
// `out` may be `x`).
template <class T, UnaryOp kOp>
void guarded_span(const T* x, T* out, int64_t n) {
  constexpr int64_t kChunk = 256;
  static const SpanUnaryFn<T> sleef = sleef_span<T>(kOp);
  T in[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = std::min(kChunk, n - i);
    std::copy(x + i, x + i + m, in);
    sleef(in, out + i, m);
    for (int64_t k = 0; k < m; ++k) {
      if (outside_domain(kOp, in[k])) out[i + k] = libm_value(kOp, in[k]);
    }
  }
}

// The guarded span of an op with domain limits, nullptr for the others.
template <class T>
SpanUnaryFn<T> guarded(UnaryOp op) {
  switch (op) {
    case UnaryOp::kLogPlusOne:
      return guarded_span<T, UnaryOp::kLogPlusOne>;
    case UnaryOp::kSinh:
      return guarded_span<T, UnaryOp::kSinh>;
    case UnaryOp::kCosh:
      return guarded_span<T, UnaryOp::kCosh>;
    case UnaryOp::kAsinh:
      return guarded_span<T, UnaryOp::kAsinh>;
    case UnaryOp::kAcosh:
      return guarded_span<T, UnaryOp::kAcosh>;
    case UnaryOp::kErf:
      return guarded_span<T, UnaryOp::kErf>;
    default:
      return nullptr;
  }
}

// Chunks of a span on the stack: e = exp(-|x|) in place, then 1 / (1 + e) for x >= 0 and
// e / (1 + e) below, so e never overflows (a large negative x keeps its subnormal result, not
// 0). Each element's result depends on its own value only (the exp span pads its last vector).
template <class T>
void logistic_span(const T* x, T* out, int64_t n) {
  constexpr int64_t kChunk = 256;
  const SpanUnaryFn<T> exp = vector_unary<T>(UnaryOp::kExponential);
  T e[kChunk];
  T sign[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = std::min(kChunk, n - i);
    for (int64_t k = 0; k < m; ++k) {
      sign[k] = x[i + k];
      e[k] = -std::fabs(x[i + k]);
    }
    exp(e, e, m);
    for (int64_t k = 0; k < m; ++k) {
      out[i + k] = (sign[k] >= 0 ? T(1) : e[k]) / (T(1) + e[k]);
    }
  }
}

}  // namespace

template <class T>
SpanUnaryFn<T> vector_unary(UnaryOp op) {
  if (active_set() == nullptr) return nullptr;
  // f32 tanh stays with Eigen's rational approximation (elementwise_vector_math.cpp): about
  // twice SLEEF's speed here (4M elements: 14 against 25 ms on one core).
  if (std::is_same_v<T, float> && op == UnaryOp::kTanh) return nullptr;
  if (op == UnaryOp::kLogistic) return logistic_span<T>;
  if (const SpanUnaryFn<T> span = guarded<T>(op)) return span;
  return sleef_span<T>(op);
}

template SpanUnaryFn<float> vector_unary<float>(UnaryOp);
template SpanUnaryFn<double> vector_unary<double>(UnaryOp);

template <>
SpanBinaryFn<float> vector_binary<float>(BinaryOp op) {
  const detail::VectorMathSet* set = active_set();
  return set == nullptr ? nullptr : set->binary_f32(op);
}

template <>
SpanBinaryFn<double> vector_binary<double>(BinaryOp op) {
  const detail::VectorMathSet* set = active_set();
  return set == nullptr ? nullptr : set->binary_f64(op);
}

const char* vector_math_backend() {
  const detail::VectorMathSet* set = active_set();
  if (set == nullptr) return "libm";
  return set == detail::vector_math_avx2() ? "sleef-avx2" : "sleef-sse2";
}

}  // namespace ndbuf::program
