// Span kernels with one scalar operand (span_kernels.hpp) give the bits of the two-span kernel
// fed a span filled with that scalar, on either side, for every op that has them, f32 and f64,
// with NaNs, signed zeros, infinities and subnormals among the values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {
namespace {

template <class T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  return {T(0),          T(-0.0),        T(1),           T(-2.5),         T(3.25),
          L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), -L::min(),
          L::max(),      T(1e-3),        T(7),           T(-7),           T(0.1),
          T(1e30)};
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
void check_scalar_kernels() {
  const std::vector<T> span = special_values<T>();
  const auto n = static_cast<int64_t>(span.size());
  int checked = 0;
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSubtract, BinaryOp::kMultiply, BinaryOp::kDivide,
                      BinaryOp::kMaximum, BinaryOp::kMinimum}) {
    const SpanBinaryFn<T> both = span_binary<T>(op);
    ASSERT_NE(both, nullptr);
    for (bool left : {false, true}) {
      const SpanScalarFn<T> f = span_binary_scalar<T>(op, left);
      ASSERT_NE(f, nullptr) << static_cast<int>(op);
      for (T scalar : span) {
        const std::vector<T> filled(span.size(), scalar);
        std::vector<T> expect(span.size()), got(span.size());
        if (left) {
          both(filled.data(), span.data(), expect.data(), n);
        } else {
          both(span.data(), filled.data(), expect.data(), n);
        }
        f(span.data(), scalar, got.data(), n);
        EXPECT_TRUE(same_bits(got, expect))
            << "op " << static_cast<int>(op) << ", scalar " << scalar << ", left " << left;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 6 * 2 * n);
}

TEST(SpanScalarKernels, F32MatchTheFilledSpanBitForBit) { check_scalar_kernels<float>(); }

TEST(SpanScalarKernels, F64MatchTheFilledSpanBitForBit) { check_scalar_kernels<double>(); }

TEST(SpanScalarKernels, ValuesOnEachSide) {
  const std::vector<float> span = {1, 2, 4};
  std::vector<float> out(3);
  span_binary_scalar<float>(BinaryOp::kDivide, false)(span.data(), 8.0f, out.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{0.125f, 0.25f, 0.5f}));
  span_binary_scalar<float>(BinaryOp::kDivide, true)(span.data(), 8.0f, out.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{8.0f, 4.0f, 2.0f}));
  span_binary_scalar<float>(BinaryOp::kSubtract, true)(span.data(), 1.0f, out.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{0.0f, -1.0f, -3.0f}));
}

TEST(SpanScalarKernels, OpsWithoutOneHaveNone) {
  EXPECT_EQ(span_binary_scalar<float>(BinaryOp::kAnd, false), nullptr);
}

}  // namespace
}  // namespace ndbuf::program
