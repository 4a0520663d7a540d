// The SLEEF vector math (vector_math.hpp), in each instruction set the machine runs: the error
// bound of every function, in ULP of the result's type, against a reference one precision up
// (double for f32, long double for f64) over the whole range (bit patterns spread over all floats:
// NaNs, infinities, subnormals and both zeros included); special values and overflow edges; results
// that do not depend on where an element sits in a span; and the tensor kernels computing the same
// bits as the spans.
#include "program/ops/elementwise/vector_math.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/ops/elementwise/float_patterns.hpp"

namespace ndbuf::program {
namespace {

bool have_vector_math() { return std::string(vector_math_backend()) != "libm"; }

#define NDBUF_NEED_VECTOR_MATH() \
  if (!have_vector_math()) GTEST_SKIP() << "built without SLEEF"

// Runs `check` with each SLEEF instruction set this machine runs (AVX-512F, AVX2, SSE2), the
// CPU's best restored afterwards.
template <class F>
void on_every_backend(F check) {
  struct Restore {
    ~Restore() { use_vector_math_backend(""); }
  } restore;
  for (const std::string& name : vector_math_backends()) {
    SCOPED_TRACE(name);
    use_vector_math_backend(name);
    ASSERT_EQ(std::string(vector_math_backend()), name);
    check();
  }
}

std::vector<float> spread_floats(uint32_t step) { return testing::spread_float_patterns(step); }

// Doubles over the whole range: every 2^40-th bit pattern's neighbourhood, low bits random.
std::vector<double> spread_doubles(int count) {
  std::mt19937_64 rng(42);
  std::vector<double> x;
  const uint64_t step = UINT64_MAX / static_cast<uint64_t>(count);
  for (int k = 0; k < count; ++k) {
    const uint64_t bits = static_cast<uint64_t>(k) * step + (rng() & 0xFFFFFFFF);
    double v;
    std::memcpy(&v, &bits, sizeof v);
    x.push_back(v);
  }
  return x;
}

// The spacing of floats (digits = 24) or doubles (53) around |ref|; subnormals share the
// smallest one.
long double ulp_at(long double ref, int digits, int min_exponent) {
  int e = 0;
  std::frexp(std::fabs(ref), &e);
  return std::ldexp(1.0L, std::max(e, min_exponent) - digits);
}

// |y - ref| in ULP of y's type; 0 where both are the same NaN-ness or infinity, infinite where
// one is a NaN or an infinity and the other is not.
template <class T>
long double ulp_error(T y, long double ref) {
  using L = std::numeric_limits<T>;
  if (std::isnan(ref) || std::isnan(y)) {
    return std::isnan(ref) && std::isnan(y) ? 0 : INFINITY;
  }
  // A reference beyond the largest finite value rounds to infinity past half a ULP more.
  const long double top = static_cast<long double>(L::max());
  const long double half_ulp_top = ulp_at(top, L::digits, L::min_exponent) / 2;
  if (std::isinf(y))
    return std::fabs(ref) >= top + half_ulp_top && (y > 0) == (ref > 0) ? 0 : INFINITY;
  if (std::isinf(ref)) return INFINITY;
  return std::fabs(static_cast<long double>(y) - ref) / ulp_at(ref, L::digits, L::min_exponent);
}

struct Function {
  const char* name;
  UnaryOp op;
  double (*f32_reference)(double);
  long double (*f64_reference)(long double);
  double bound;  // ULP
};

long double logistic_l(long double x) { return 1.0L / (1.0L + std::exp(-x)); }
double logistic_d(double x) { return static_cast<double>(logistic_l(x)); }

// NOLINTBEGIN: the reference functions by address
const Function kFunctions[] = {
    {"exp", UnaryOp::kExponential, ::exp, ::expl, 1.0},
    {"expm1", UnaryOp::kExponentialMinusOne, ::expm1, ::expm1l, 1.0},
    {"log", UnaryOp::kLog, ::log, ::logl, 1.0},
    {"log1p", UnaryOp::kLogPlusOne, ::log1p, ::log1pl, 1.0},
    {"logistic", UnaryOp::kLogistic, logistic_d, logistic_l, 2.5},
    {"sin", UnaryOp::kSine, ::sin, ::sinl, 1.0},
    {"cos", UnaryOp::kCosine, ::cos, ::cosl, 1.0},
    {"tan", UnaryOp::kTan, ::tan, ::tanl, 1.0},
    {"tanh", UnaryOp::kTanh, ::tanh, ::tanhl, 1.0},
    {"sinh", UnaryOp::kSinh, ::sinh, ::sinhl, 1.0},
    {"cosh", UnaryOp::kCosh, ::cosh, ::coshl, 1.0},
    {"asin", UnaryOp::kAsin, ::asin, ::asinl, 1.0},
    {"acos", UnaryOp::kAcos, ::acos, ::acosl, 1.0},
    {"atan", UnaryOp::kAtan, ::atan, ::atanl, 1.0},
    {"asinh", UnaryOp::kAsinh, ::asinh, ::asinhl, 1.0},
    {"acosh", UnaryOp::kAcosh, ::acosh, ::acoshl, 1.0},
    {"atanh", UnaryOp::kAtanh, ::atanh, ::atanhl, 1.0},
    {"erf", UnaryOp::kErf, ::erf, ::erfl, 1.0},
    {"erfc", UnaryOp::kErfc, ::erfc, ::erfcl, 1.5},
    {"cbrt", UnaryOp::kCbrt, ::cbrt, ::cbrtl, 1.0},
};
// NOLINTEND

// The reference itself is off by half a ULP of its own type: 2^-29 of an f32 ULP, 2^-11 of an
// f64 one (x87's long double).
constexpr double kReferenceSlack = 1.0 / 1024;

// Expects fn's span over `x` within fn's bound of `reference`, the worst input named.
template <class T, class Reference>
void expect_within_bound(const Function& fn, const std::vector<T>& x, Reference reference) {
  const SpanUnaryFn<T> span = vector_unary<T>(fn.op);
  ASSERT_NE(span, nullptr) << fn.name;
  std::vector<T> y(x.size());
  span(x.data(), y.data(), static_cast<int64_t>(x.size()));
  long double worst = 0;
  T worst_at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const long double e = ulp_error<T>(y[i], reference(x[i]));
    if (e > worst) worst = e, worst_at = x[i];
  }
  EXPECT_LE(worst, fn.bound + kReferenceSlack) << fn.name << " at " << worst_at;
}

TEST(VectorMath, EveryF32FunctionWithinItsBoundOverTheWholeRange) {
  NDBUF_NEED_VECTOR_MATH();
  const std::vector<float> x = spread_floats(4099);
  on_every_backend([&] {
    for (const Function& fn : kFunctions) {
      if (fn.op == UnaryOp::kTanh) {  // Eigen's (tanh_kernel_test.cpp)
        EXPECT_EQ(vector_unary<float>(fn.op), nullptr);
        continue;
      }
      expect_within_bound<float>(fn, x, fn.f32_reference);
    }
  });
}

TEST(VectorMath, EveryF64FunctionWithinItsBoundOverTheWholeRange) {
  NDBUF_NEED_VECTOR_MATH();
  const std::vector<double> x = spread_doubles(1 << 17);
  on_every_backend([&] {
    for (const Function& fn : kFunctions) {
      expect_within_bound<double>(fn, x, [&](double v) { return fn.f64_reference(v); });
    }
  });
}

// pow and atan2 over a grid of spread values and exponents (negative bases with integer and
// fractional exponents, zeros, infinities and NaNs among them).
TEST(VectorMath, PowAndAtan2WithinOneUlp) {
  NDBUF_NEED_VECTOR_MATH();
  const std::vector<float> base = spread_floats(65537 * 7);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> second = {-inf, -100.5f, -3.0f, -2.5f, -1.0f, -0.5f,  -0.0f, 0.0f,
                                     0.5f, 1.0f,    2.0f,  3.0f,  10.3f, 127.0f, inf,   NAN};
  std::vector<float> a, b;
  for (float u : base) {
    for (float v : second) a.push_back(u), b.push_back(v);
  }
  std::vector<float> y(a.size());
  on_every_backend([&] {
    struct Binary {
      const char* name;
      BinaryOp op;
      double (*reference)(double, double);
    };
    for (const Binary& fn :
         {Binary{"pow", BinaryOp::kPower, ::pow}, Binary{"atan2", BinaryOp::kAtan2, ::atan2}}) {
      const SpanBinaryFn<float> span = vector_binary<float>(fn.op);
      ASSERT_NE(span, nullptr) << fn.name;
      span(a.data(), b.data(), y.data(), static_cast<int64_t>(a.size()));
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_LE(ulp_error<float>(y[i], fn.reference(a[i], b[i])), 1.0 + kReferenceSlack)
            << fn.name << "(" << a[i] << ", " << b[i] << ") = " << y[i];
      }
      // The same in f64, against long double.
      const SpanBinaryFn<double> wide = vector_binary<double>(fn.op);
      ASSERT_NE(wide, nullptr) << fn.name;
      const std::vector<double> u(a.begin(), a.end()), v(b.begin(), b.end());
      std::vector<double> z(u.size());
      wide(u.data(), v.data(), z.data(), static_cast<int64_t>(u.size()));
      for (size_t i = 0; i < u.size(); ++i) {
        const long double ref = fn.op == BinaryOp::kPower
                                    ? std::pow(static_cast<long double>(u[i]), v[i])
                                    : std::atan2(static_cast<long double>(u[i]), v[i]);
        ASSERT_LE(ulp_error<double>(z[i], ref), 1.0 + kReferenceSlack)
            << fn.name << "(" << u[i] << ", " << v[i] << ") = " << z[i];
      }
    }
  });
}

float apply(UnaryOp op, float x) {
  float y = 0;
  vector_unary<float>(op)(&x, &y, 1);
  return y;
}

TEST(VectorMath, SpecialValuesAsC99Defines) {
  NDBUF_NEED_VECTOR_MATH();
  on_every_backend([&] {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(apply(UnaryOp::kExponential, NAN)));
    EXPECT_EQ(apply(UnaryOp::kExponential, inf), inf);
    EXPECT_EQ(apply(UnaryOp::kExponential, -inf), 0.0f);
    EXPECT_EQ(apply(UnaryOp::kExponential, -0.0f), 1.0f);
    EXPECT_EQ(apply(UnaryOp::kLog, 0.0f), -inf);
    EXPECT_EQ(apply(UnaryOp::kLog, -0.0f), -inf);
    EXPECT_TRUE(std::isnan(apply(UnaryOp::kLog, -1.0f)));
    EXPECT_EQ(apply(UnaryOp::kLog, inf), inf);
    EXPECT_EQ(apply(UnaryOp::kLogPlusOne, -1.0f), -inf);
    EXPECT_EQ(apply(UnaryOp::kExponentialMinusOne, -inf), -1.0f);
    EXPECT_TRUE(std::isnan(apply(UnaryOp::kSine, inf)));
    EXPECT_TRUE(std::isnan(apply(UnaryOp::kCosine, -inf)));
    EXPECT_EQ(apply(UnaryOp::kErf, -inf), -1.0f);
    EXPECT_EQ(apply(UnaryOp::kErfc, inf), 0.0f);
    EXPECT_EQ(apply(UnaryOp::kCbrt, -8.0f), -2.0f);
    EXPECT_EQ(apply(UnaryOp::kLogistic, inf), 1.0f);
    EXPECT_EQ(apply(UnaryOp::kLogistic, -inf), 0.0f);
    EXPECT_EQ(apply(UnaryOp::kLogistic, 0.0f), 0.5f);
    EXPECT_TRUE(std::isnan(apply(UnaryOp::kLogistic, NAN)));
    // Signed zeros survive the odd functions.
    for (UnaryOp op : {UnaryOp::kSine, UnaryOp::kTan, UnaryOp::kAsinh, UnaryOp::kAtan,
                       UnaryOp::kErf, UnaryOp::kExponentialMinusOne, UnaryOp::kLogPlusOne}) {
      const float y = apply(op, -0.0f);
      EXPECT_TRUE(y == 0 && std::signbit(y)) << static_cast<int>(op);
    }
    // exp's overflow edge: the largest float's log rounds down to 88.72283, the next float up
    // overflows; and a subnormal result keeps its digits.
    const float near_top = apply(UnaryOp::kExponential, 88.72283f);
    EXPECT_TRUE(std::isfinite(near_top) && near_top > 3.40e38f) << near_top;
    EXPECT_EQ(apply(UnaryOp::kExponential, std::nextafter(88.72284f, 100.0f)), inf);
    EXPECT_NEAR(apply(UnaryOp::kExponential, -100.0f), std::exp(-100.0), 2e-45);
    // logistic of a large negative number is the subnormal e^x, not 0.
    EXPECT_GT(apply(UnaryOp::kLogistic, -100.0f), 0.0f);
    double edge = 0;
    double y = 0;
    edge = 709.78;
    vector_unary<double>(UnaryOp::kExponential)(&edge, &y, 1);
    EXPECT_TRUE(std::isfinite(y));
    edge = 709.79;
    vector_unary<double>(UnaryOp::kExponential)(&edge, &y, 1);
    EXPECT_EQ(y, std::numeric_limits<double>::infinity());
  });
}

// Every length up to two vectors and a tail, at unaligned starts, in place and out of place:
// an element's bits are the same wherever it sits.
TEST(VectorMath, ResultsDoNotDependOnPositionInTheSpan) {
  NDBUF_NEED_VECTOR_MATH();
  std::vector<float> x(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -7.3f + 0.41f * static_cast<float>(i);
  on_every_backend([&] {
    for (UnaryOp op : {UnaryOp::kExponential, UnaryOp::kLog, UnaryOp::kSine, UnaryOp::kLogistic}) {
      const SpanUnaryFn<float> span = vector_unary<float>(op);
      std::vector<float> whole(x.size());
      span(x.data(), whole.data(), static_cast<int64_t>(x.size()));
      for (int64_t start = 0; start < 3; ++start) {
        for (int64_t n = 0; n <= 19; ++n) {
          std::vector<float> out(x.size(), 7.0f), in_place(x);
          span(x.data() + start, out.data() + start, n);
          span(in_place.data() + start, in_place.data() + start, n);
          for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
            const bool inside = i >= start && i < start + n;
            const float expect = inside ? whole[i] : 7.0f;
            ASSERT_EQ(std::memcmp(&out[i], &expect, 4), 0) << start << " " << n << " " << i;
            const float kept = inside ? whole[i] : x[i];
            ASSERT_EQ(std::memcmp(&in_place[i], &kept, 4), 0) << start << " " << n << " " << i;
          }
        }
      }
    }
  });
}

// The sets this machine runs come best first, the CPU's best is the one in use, and a set the
// process cannot run is an error.
TEST(VectorMath, BackendsBestFirst) {
  NDBUF_NEED_VECTOR_MATH();
  const std::vector<std::string> names = vector_math_backends();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "sleef-sse2");
  EXPECT_EQ(std::string(vector_math_backend()), names.front());
  EXPECT_THROW(use_vector_math_backend("sleef-neon"), Error);
  EXPECT_EQ(std::string(vector_math_backend()), names.front());
}

// The whole-tensor kernels (a column-major operand included) compute the spans' bits.
TEST(VectorMath, TensorKernelsAgreeWithTheSpans) {
  NDBUF_NEED_VECTOR_MATH();
  std::vector<double> values(12 * 7);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.37 * static_cast<double>(i) - 9.1;
  const Tensor x = testing::column_major(testing::f64({12, 7}, values));
  const Tensor y =
      unary(UnaryOp::kLogPlusOne, unary(UnaryOp::kExponential, x, DType::kF64), DType::kF64);
  std::vector<double> expect = values;
  const auto n = static_cast<int64_t>(expect.size());
  vector_unary<double>(UnaryOp::kExponential)(expect.data(), expect.data(), n);
  vector_unary<double>(UnaryOp::kLogPlusOne)(expect.data(), expect.data(), n);
  const auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  EXPECT_TRUE(same_bits(testing::values<double>(y), expect));
  const Tensor p = binary(BinaryOp::kPower, x, x, DType::kF64);
  std::vector<double> powers(values.size());
  vector_binary<double>(BinaryOp::kPower)(values.data(), values.data(), powers.data(), n);
  EXPECT_TRUE(same_bits(testing::values<double>(p), powers));
}

}  // namespace
}  // namespace ndbuf::program
