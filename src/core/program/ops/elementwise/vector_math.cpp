// Picks the SLEEF spans of vector_math.hpp for this CPU: AVX-512F where the CPU has it
// (vector_math_avx512.cpp), else AVX2 with FMA where it has both (vector_math_avx2.cpp), else
// SSE2 (built here: x86-64's baseline). logistic is composed here from the vector exp.
#include "program/ops/elementwise/vector_math.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "ndbuf/base/error.hpp"
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

bool cpu_has_avx512f() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

struct NamedSet {
  const char* name;
  const detail::VectorMathSet* set;
};

// The sets this build has and this CPU runs, best first; found once.
const std::vector<NamedSet>& usable_sets() {
  static const std::vector<NamedSet> sets = [] {
    std::vector<NamedSet> found;
#ifdef NDBUF_HAVE_SLEEF
    if (detail::vector_math_avx512() != nullptr && cpu_has_avx512f()) {
      found.push_back({"sleef-avx512", detail::vector_math_avx512()});
    }
    if (detail::vector_math_avx2() != nullptr && cpu_has_avx2_fma()) {
      found.push_back({"sleef-avx2", detail::vector_math_avx2()});
    }
    found.push_back({"sleef-sse2", &detail::kSleefSet});
#endif
    return found;
  }();
  return sets;
}

// The set in use: the CPU's best unless use_vector_math_backend() chose another.
std::atomic<const NamedSet*> g_chosen{nullptr};

const NamedSet* chosen_set() {
  const NamedSet* chosen = g_chosen.load(std::memory_order_acquire);
  if (chosen != nullptr) return chosen;
  const std::vector<NamedSet>& sets = usable_sets();
  return sets.empty() ? nullptr : &sets.front();
}

const detail::VectorMathSet* active_set() {
  const NamedSet* chosen = chosen_set();
  return chosen == nullptr ? nullptr : chosen->set;
}

// Where SLEEF's functions leave their error bound (their documented domains; erf just above
// the smallest normal number and erfc whose result comes near it, where the SSE2 set, without
// FMA, was measured 1.04 and 1.86 ULP off): those elements are computed by libm, decided by the
// element's value alone, whichever set runs.
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
      return a < (f32 ? T(1e-37) : T(1e-306)) && a != 0;
    case UnaryOp::kErfc:  // erfc(9) is 4e-37, erfc(26) 6e-296
      return x > (f32 ? T(9) : T(26));
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
    case UnaryOp::kErfc:
      return std::erfc(x);
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
  const SpanUnaryFn<T> sleef = sleef_span<T>(kOp);
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
    case UnaryOp::kErfc:
      return guarded_span<T, UnaryOp::kErfc>;
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

namespace {

// f32 atan2 whose result is tiny (below 1e-30, 2^-100; subnormal ones included) again in double
// through libm: the SSE2 set was measured 1.02 ULP off at 2.8e-38 and below.
void atan2_f32(const float* y, const float* x, float* out, int64_t n) {
  constexpr int64_t kChunk = 256;
  const SpanBinaryFn<float> sleef = active_set()->binary_f32(BinaryOp::kAtan2);
  float a[kChunk];
  float b[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = std::min(kChunk, n - i);
    std::copy(y + i, y + i + m, a);
    std::copy(x + i, x + i + m, b);
    sleef(a, b, out + i, m);
    for (int64_t k = 0; k < m; ++k) {
      const float r = out[i + k];
      if (r != 0 && std::fabs(r) < 1e-30f) {
        out[i + k] = static_cast<float>(std::atan2(static_cast<double>(a[k]), b[k]));
      }
    }
  }
}

}  // namespace

template <>
SpanBinaryFn<float> vector_binary<float>(BinaryOp op) {
  const detail::VectorMathSet* set = active_set();
  if (set == nullptr) return nullptr;
  return op == BinaryOp::kAtan2 ? atan2_f32 : set->binary_f32(op);
}

template <>
SpanBinaryFn<double> vector_binary<double>(BinaryOp op) {
  const detail::VectorMathSet* set = active_set();
  return set == nullptr ? nullptr : set->binary_f64(op);
}

const char* vector_math_backend() {
  const NamedSet* chosen = chosen_set();
  return chosen == nullptr ? "libm" : chosen->name;
}

std::vector<std::string> vector_math_backends() {
  std::vector<std::string> names;
  for (const NamedSet& set : usable_sets()) names.emplace_back(set.name);
  return names;
}

void use_vector_math_backend(const std::string& backend) {
  if (backend.empty()) {
    g_chosen.store(nullptr, std::memory_order_release);
    return;
  }
  for (const NamedSet& set : usable_sets()) {
    if (backend == set.name) {
      g_chosen.store(&set, std::memory_order_release);
      return;
    }
  }
  throw Error(ErrorKind::kInvalidArgument,
              "The vector math backend " + backend + " is not available in this process.");
}

}  // namespace ndbuf::program
