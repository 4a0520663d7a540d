// The span kernels (span_kernels.hpp): one vectorised loop per element function.
#include "program/ops/elementwise/span_kernels.hpp"

#include <type_traits>

#include "base/isa_clones.hpp"
#include "program/ops/elementwise/elementwise_families.hpp"
#include "program/ops/elementwise/float_functions.hpp"
#include "program/ops/elementwise/vector_math.hpp"

namespace ndbuf::program {
namespace {

using namespace detail;  // NOLINT(build/namespaces): the element function objects

// omp simd: R builds with -O2, where GCC vectorises only loops it proves cheap; the spans
// never overlap except an output equal to an input, which element-wise loops allow.
template <class T, class F>
void unary_span(const T* x, T* out, int64_t n) {
  const F f{};
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]);
}

// The arithmetic spans are also built for AVX2 and picked at run time (the package targets
// the baseline ISA): twice the lanes for loops bound by the first-level cache. Without FMA
// contraction (no "fma" target) every lane rounds as the baseline code does.
#define NDBUF_SPAN_CLONES NDBUF_ISA_CLONES("avx2", "default")

#define NDBUF_BINARY_SPAN(name, T, Fn)                                              \
  NDBUF_SPAN_CLONES void name(const T* lhs, const T* rhs, T* out, int64_t n) {      \
    const Fn f{};                                                                   \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) out[i] = f(lhs[i], rhs[i]); \
  }
#define NDBUF_SCALAR_SPANS(name, T, Fn)                                              \
  NDBUF_SPAN_CLONES void name##_right(const T* span, T scalar, T* out, int64_t n) {  \
    const Fn f{};                                                                    \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) out[i] = f(span[i], scalar); \
  }                                                                                  \
  NDBUF_SPAN_CLONES void name##_left(const T* span, T scalar, T* out, int64_t n) {   \
    const Fn f{};                                                                    \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) out[i] = f(scalar, span[i]); \
  }
#define NDBUF_UNARY_SPAN(name, T, Fn)                                     \
  NDBUF_SPAN_CLONES void name(const T* x, T* out, int64_t n) {            \
    const Fn f{};                                                         \
    _Pragma("omp simd") for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]); \
  }
#define NDBUF_ARITHMETIC_SPANS(T, suffix)              \
  NDBUF_BINARY_SPAN(add_##suffix, T, AddFn)            \
  NDBUF_BINARY_SPAN(subtract_##suffix, T, SubtractFn)  \
  NDBUF_BINARY_SPAN(multiply_##suffix, T, MultiplyFn)  \
  NDBUF_BINARY_SPAN(divide_##suffix, T, DivideFn)      \
  NDBUF_BINARY_SPAN(maximum_##suffix, T, MaximumFn)    \
  NDBUF_BINARY_SPAN(minimum_##suffix, T, MinimumFn)    \
  NDBUF_SCALAR_SPANS(add_##suffix, T, AddFn)           \
  NDBUF_SCALAR_SPANS(subtract_##suffix, T, SubtractFn) \
  NDBUF_SCALAR_SPANS(multiply_##suffix, T, MultiplyFn) \
  NDBUF_SCALAR_SPANS(divide_##suffix, T, DivideFn)     \
  NDBUF_SCALAR_SPANS(maximum_##suffix, T, MaximumFn)   \
  NDBUF_SCALAR_SPANS(minimum_##suffix, T, MinimumFn)   \
  NDBUF_UNARY_SPAN(negate_##suffix, T, NegateFn)       \
  NDBUF_UNARY_SPAN(abs_##suffix, T, AbsFn)             \
  NDBUF_UNARY_SPAN(square_##suffix, T, SquareFn)

NDBUF_ARITHMETIC_SPANS(float, f32)
NDBUF_ARITHMETIC_SPANS(double, f64)

#define NDBUF_SPANS_OF(name)                \
  if constexpr (std::is_same_v<T, float>) { \
    return name##_f32;                      \
  } else {                                  \
    return name##_f64;                      \
  }

#define NDBUF_SCALAR_SPANS_OF(name)                          \
  if constexpr (std::is_same_v<T, float>) {                  \
    return scalar_left ? name##_f32_left : name##_f32_right; \
  } else {                                                   \
    return scalar_left ? name##_f64_left : name##_f64_right; \
  }

template <class T>
SpanUnaryFn<T> tanh_span() {
  if constexpr (std::is_same_v<T, float>) {
    return tanh_span_f32;  // the tensor kernel's vector tanh (elementwise_vector_math.cpp)
  } else {
    return unary_span<T, TanhFn>;
  }
}

}  // namespace

template <class T>
SpanUnaryFn<T> span_unary(UnaryOp op) {
  if (const SpanUnaryFn<T> f = vector_unary<T>(op)) return f;
  switch (op) {
    case UnaryOp::kNegate:
      NDBUF_SPANS_OF(negate)
    case UnaryOp::kAbs:
      NDBUF_SPANS_OF(abs)
    case UnaryOp::kSquare:
      NDBUF_SPANS_OF(square)
    case UnaryOp::kExponential:
      return unary_span<T, ExpFn>;
    case UnaryOp::kLog:
      return unary_span<T, LogFn>;
    case UnaryOp::kLogistic:
      return unary_span<T, LogisticFn>;
    case UnaryOp::kSqrt:
      return unary_span<T, SqrtFn>;
    case UnaryOp::kRsqrt:
      return unary_span<T, RsqrtFn>;
    case UnaryOp::kTanh:
      return tanh_span<T>();
    default:
      return nullptr;
  }
}

template <class T>
SpanBinaryFn<T> span_binary(BinaryOp op) {
  if (const SpanBinaryFn<T> f = vector_binary<T>(op)) return f;
  switch (op) {
    case BinaryOp::kAdd:
      NDBUF_SPANS_OF(add)
    case BinaryOp::kSubtract:
      NDBUF_SPANS_OF(subtract)
    case BinaryOp::kMultiply:
      NDBUF_SPANS_OF(multiply)
    case BinaryOp::kDivide:
      NDBUF_SPANS_OF(divide)
    case BinaryOp::kMaximum:
      NDBUF_SPANS_OF(maximum)
    case BinaryOp::kMinimum:
      NDBUF_SPANS_OF(minimum)
    default:
      return nullptr;
  }
}

template <class T>
SpanScalarFn<T> span_binary_scalar(BinaryOp op, bool scalar_left) {
  // Ops the vector math library computes have no scalar form: the caller fills a span.
  if (vector_binary<T>(op) != nullptr) return nullptr;
  switch (op) {
    case BinaryOp::kAdd:
      NDBUF_SCALAR_SPANS_OF(add)
    case BinaryOp::kSubtract:
      NDBUF_SCALAR_SPANS_OF(subtract)
    case BinaryOp::kMultiply:
      NDBUF_SCALAR_SPANS_OF(multiply)
    case BinaryOp::kDivide:
      NDBUF_SCALAR_SPANS_OF(divide)
    case BinaryOp::kMaximum:
      NDBUF_SCALAR_SPANS_OF(maximum)
    case BinaryOp::kMinimum:
      NDBUF_SCALAR_SPANS_OF(minimum)
    default:
      return nullptr;
  }
}

template SpanUnaryFn<float> span_unary<float>(UnaryOp);
template SpanUnaryFn<double> span_unary<double>(UnaryOp);
template SpanBinaryFn<float> span_binary<float>(BinaryOp);
template SpanBinaryFn<double> span_binary<double>(BinaryOp);
template SpanScalarFn<float> span_binary_scalar<float>(BinaryOp, bool);
template SpanScalarFn<double> span_binary_scalar<double>(BinaryOp, bool);

}  // namespace ndbuf::program
