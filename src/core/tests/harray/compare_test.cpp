// Tests of element-wise equality across dtypes and layouts.
#include "ndbuf/harray/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <limits>
#include <numeric>

#include "ndbuf/harray/slice.hpp"

namespace ndbuf {
namespace {

template <class T>
Tensor from_values(DType dtype, const Shape& shape, std::initializer_list<T> values,
                   Order order = Order::kRowMajor) {
  Tensor t = Tensor::allocate(dtype, shape, order);
  std::copy(values.begin(), values.end(), static_cast<T*>(t.data()));
  return t;
}

Tensor iota(const Shape& shape) {
  Tensor t = Tensor::allocate(DType::kF64, shape, Order::kRowMajor);
  std::iota(static_cast<double*>(t.data()), static_cast<double*>(t.data()) + t.numel(), 0.0);
  return t;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(TensorsEqual, SameValuesAreEqual) {
  EXPECT_TRUE(tensors_equal(iota({4, 3}), iota({4, 3})));
  const Tensor t = iota({4, 3});
  EXPECT_TRUE(tensors_equal(t, t));
}

TEST(TensorsEqual, OneDifferentElementIsEnough) {
  const Tensor a = iota({4, 3});
  const Tensor b = iota({4, 3});
  static_cast<double*>(b.data())[11] = 99;
  EXPECT_FALSE(tensors_equal(a, b));
  static_cast<double*>(b.data())[11] = 11;
  static_cast<double*>(b.data())[0] = -1;
  EXPECT_FALSE(tensors_equal(a, b));
}

TEST(TensorsEqual, NaNIsNeverEqualAndZeroEqualsNegativeZero) {
  const Tensor a = from_values<double>(DType::kF64, {2}, {kNaN, 0.0});
  EXPECT_FALSE(tensors_equal(a, a));
  const Tensor z = from_values<double>(DType::kF64, {2}, {0.0, -0.0});
  const Tensor nz = from_values<double>(DType::kF64, {2}, {-0.0, 0.0});
  EXPECT_TRUE(tensors_equal(z, nz));
  const Tensor f = from_values<float>(DType::kF32, {1}, {std::numeric_limits<float>::quiet_NaN()});
  EXPECT_FALSE(tensors_equal(f, f));
  const Tensor h = from_values<Half>(DType::kF16, {2}, {to_half(kNaN), to_half(1)});
  EXPECT_FALSE(tensors_equal(h, h));
  const Tensor h0 = from_values<Half>(DType::kF16, {1}, {to_half(0.0)});
  const Tensor h1 = from_values<Half>(DType::kF16, {1}, {to_half(-0.0)});
  EXPECT_TRUE(tensors_equal(h0, h1));
}

TEST(TensorsEqual, ComplexComparesBothParts) {
  using C = std::complex<double>;
  const Tensor a = from_values<C>(DType::kC128, {2}, {C(1, 2), C(3, -4)});
  const Tensor b = from_values<C>(DType::kC128, {2}, {C(1, 2), C(3, 4)});
  EXPECT_TRUE(tensors_equal(a, a));
  EXPECT_FALSE(tensors_equal(a, b));
  const Tensor n = from_values<C>(DType::kC128, {1}, {C(1, kNaN)});
  EXPECT_FALSE(tensors_equal(n, n));
}

TEST(TensorsEqual, DifferentShapesOrDtypesAreNotEqual) {
  EXPECT_FALSE(tensors_equal(iota({4, 3}), iota({3, 4})));
  EXPECT_FALSE(tensors_equal(iota({12}), iota({4, 3})));
  EXPECT_FALSE(tensors_equal(iota({1, 12}), iota({12})));
  const Tensor f = from_values<float>(DType::kF32, {2}, {0.0f, 1.0f});
  EXPECT_FALSE(tensors_equal(f, iota({2})));
  EXPECT_TRUE(tensors_equal(iota({0, 3}), iota({0, 3})));
  EXPECT_FALSE(tensors_equal(iota({0, 3}), iota({3, 0})));
  EXPECT_TRUE(tensors_equal(iota({}), iota({})));
}

TEST(TensorsEqual, LayoutDoesNotMatter) {
  // The same 2x3 values in row-major and column-major memory.
  const Tensor row = from_values<double>(DType::kF64, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor col =
      from_values<double>(DType::kF64, {2, 3}, {1, 4, 2, 5, 3, 6}, Order::kColumnMajor);
  EXPECT_TRUE(tensors_equal(row, col));
  EXPECT_TRUE(tensors_equal(col, row));
  // A strided view equals a standalone tensor holding its elements.
  const Tensor t = iota({4, 3});
  const Tensor view = slice(
      t, {AxisSlice::range(std::nullopt, std::nullopt, -2), AxisSlice::range(1, 3, std::nullopt)});
  const Tensor standalone = from_values<double>(DType::kF64, {2, 2}, {10, 11, 4, 5});
  EXPECT_TRUE(tensors_equal(view, standalone));
  EXPECT_TRUE(tensors_equal(standalone, view));
  static_cast<double*>(t.data())[4] = 0;  // the view sees the change
  EXPECT_FALSE(tensors_equal(view, standalone));
}

TEST(TensorsEqual, IntegerAndPredTypes) {
  const Tensor a = from_values<int64_t>(DType::kI64, {2}, {INT64_MIN, 7});
  const Tensor b = from_values<int64_t>(DType::kI64, {2}, {INT64_MIN, 7});
  EXPECT_TRUE(tensors_equal(a, b));
  const Tensor p = from_values<uint8_t>(DType::kPred, {2}, {1, 0});
  const Tensor u = from_values<uint8_t>(DType::kU8, {2}, {1, 0});
  EXPECT_FALSE(tensors_equal(p, u));  // same bytes, different dtype
}

}  // namespace
}  // namespace ndbuf
