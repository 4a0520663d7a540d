// The span loops of vector_math.cpp (SSE2), vector_math_avx2.cpp (AVX2) and
// vector_math_avx512.cpp (AVX-512F): a SLEEF vector
// function applied to a span one vector at a time, the last partial vector through a padded
// copy (the same lanes, so the same bits as anywhere else in the span), and the set of spans
// (kSleefSet) of the including file's instruction set. That file defines, before including
// this one, NDBUF_LANES_F32 / NDBUF_LANES_F64 (its lane types, below) and NDBUF_SLEEF_F32(fn, ulp)
// / NDBUF_SLEEF_F64(fn, ulp) (the SLEEF function of that name and accuracy for them). Each file
// compiles these for its own instruction set, so they have internal linkage, and they call no
// out-of-line template (std::copy, say) whose AVX2 copy the linker could keep for every file.
#pragma once

#include <immintrin.h>
#include <sleef.h>

#include <cstdint>

#include "program/ops/elementwise/vector_math_isa.hpp"

// The SLEEF functions behind each op, as (op, SLEEF name, accuracy suffix).
// clang-format off
#define NDBUF_SLEEF_UNARY_FUNCTIONS(X)  \
  X(kExponential, exp, u10)             \
  X(kExponentialMinusOne, expm1, u10)   \
  X(kLog, log, u10)                     \
  X(kLogPlusOne, log1p, u10)            \
  X(kSine, sin, u10)                    \
  X(kCosine, cos, u10)                  \
  X(kTan, tan, u10)                     \
  X(kTanh, tanh, u10)                   \
  X(kSinh, sinh, u10)                   \
  X(kCosh, cosh, u10)                   \
  X(kAsin, asin, u10)                   \
  X(kAcos, acos, u10)                   \
  X(kAtan, atan, u10)                   \
  X(kAsinh, asinh, u10)                 \
  X(kAcosh, acosh, u10)                 \
  X(kAtanh, atanh, u10)                 \
  X(kErf, erf, u10)                     \
  X(kErfc, erfc, u15)                   \
  X(kCbrt, cbrt, u10)
// clang-format on
#define NDBUF_SLEEF_BINARY_FUNCTIONS(X) X(kPower, pow, u10) X(kAtan2, atan2, u10)

namespace ndbuf::program::detail {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): one copy per instruction set

// A vector type with its width and unaligned load and store (the vector types are members, not
// template arguments: their attributes would be dropped there).
struct SseF32 {
  using T = float;
  using V = __m128;
  static constexpr int64_t kWidth = 4;
  static V load(const T* p) { return _mm_loadu_ps(p); }
  static void store(T* p, V v) { _mm_storeu_ps(p, v); }
};

struct SseF64 {
  using T = double;
  using V = __m128d;
  static constexpr int64_t kWidth = 2;
  static V load(const T* p) { return _mm_loadu_pd(p); }
  static void store(T* p, V v) { _mm_storeu_pd(p, v); }
};

#ifdef __AVX__
struct AvxF32 {
  using T = float;
  using V = __m256;
  static constexpr int64_t kWidth = 8;
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
};

struct AvxF64 {
  using T = double;
  using V = __m256d;
  static constexpr int64_t kWidth = 4;
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
};
#endif

#ifdef __AVX512F__
struct Avx512F32 {
  using T = float;
  using V = __m512;
  static constexpr int64_t kWidth = 16;
  static V load(const T* p) { return _mm512_loadu_ps(p); }
  static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
};

struct Avx512F64 {
  using T = double;
  using V = __m512d;
  static constexpr int64_t kWidth = 8;
  static V load(const T* p) { return _mm512_loadu_pd(p); }
  static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
};
#endif

template <class L, auto F>
void lanes_unary(const typename L::T* x, typename L::T* out, int64_t n) {
  int64_t i = 0;
  for (; i + L::kWidth <= n; i += L::kWidth) L::store(out + i, F(L::load(x + i)));
  if (i == n) return;
  typename L::T in[L::kWidth] = {};
  typename L::T result[L::kWidth];
  for (int64_t k = i; k < n; ++k) in[k - i] = x[k];
  L::store(result, F(L::load(in)));
  for (int64_t k = i; k < n; ++k) out[k] = result[k - i];
}

template <class L, auto F>
void lanes_binary(const typename L::T* a, const typename L::T* b, typename L::T* out, int64_t n) {
  int64_t i = 0;
  for (; i + L::kWidth <= n; i += L::kWidth) {
    L::store(out + i, F(L::load(a + i), L::load(b + i)));
  }
  if (i == n) return;
  typename L::T u[L::kWidth] = {};
  typename L::T v[L::kWidth] = {};
  typename L::T result[L::kWidth];
  for (int64_t k = i; k < n; ++k) u[k - i] = a[k], v[k - i] = b[k];
  L::store(result, F(L::load(u), L::load(v)));
  for (int64_t k = i; k < n; ++k) out[k] = result[k - i];
}

#define NDBUF_F32_UNARY(op, fn, ulp) \
  case UnaryOp::op:                  \
    return lanes_unary<NDBUF_LANES_F32, NDBUF_SLEEF_F32(fn, ulp)>;
#define NDBUF_F64_UNARY(op, fn, ulp) \
  case UnaryOp::op:                  \
    return lanes_unary<NDBUF_LANES_F64, NDBUF_SLEEF_F64(fn, ulp)>;
#define NDBUF_F32_BINARY(op, fn, ulp) \
  case BinaryOp::op:                  \
    return lanes_binary<NDBUF_LANES_F32, NDBUF_SLEEF_F32(fn, ulp)>;
#define NDBUF_F64_BINARY(op, fn, ulp) \
  case BinaryOp::op:                  \
    return lanes_binary<NDBUF_LANES_F64, NDBUF_SLEEF_F64(fn, ulp)>;

SpanUnaryFn<float> sleef_unary_f32(UnaryOp op) {
  switch (op) {
    NDBUF_SLEEF_UNARY_FUNCTIONS(NDBUF_F32_UNARY)
    default:
      return nullptr;
  }
}

SpanUnaryFn<double> sleef_unary_f64(UnaryOp op) {
  switch (op) {
    NDBUF_SLEEF_UNARY_FUNCTIONS(NDBUF_F64_UNARY)
    default:
      return nullptr;
  }
}

SpanBinaryFn<float> sleef_binary_f32(BinaryOp op) {
  switch (op) {
    NDBUF_SLEEF_BINARY_FUNCTIONS(NDBUF_F32_BINARY)
    default:
      return nullptr;
  }
}

SpanBinaryFn<double> sleef_binary_f64(BinaryOp op) {
  switch (op) {
    NDBUF_SLEEF_BINARY_FUNCTIONS(NDBUF_F64_BINARY)
    default:
      return nullptr;
  }
}

#undef NDBUF_F32_UNARY
#undef NDBUF_F64_UNARY
#undef NDBUF_F32_BINARY
#undef NDBUF_F64_BINARY

const VectorMathSet kSleefSet{sleef_unary_f32, sleef_unary_f64, sleef_binary_f32, sleef_binary_f64};

}  // namespace
}  // namespace ndbuf::program::detail
