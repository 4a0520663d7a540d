// Tests of element counts, strides and their overflow checks.
#include "ndbuf/base/shape.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

// Runs `f`, expecting an ndbuf::Error of `kind` with exactly `message`.
template <class F>
void expect_error(F f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(CheckedNumel, Products) {
  EXPECT_EQ(checked_numel({}), 1);  // 0-d: one element
  EXPECT_EQ(checked_numel({7}), 7);
  EXPECT_EQ(checked_numel({2, 3, 4}), 24);
  EXPECT_EQ(checked_numel({1, 1, 1}), 1);
  EXPECT_EQ(checked_numel({int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
  EXPECT_EQ(checked_numel({kMax64}), kMax64);
  EXPECT_EQ(checked_numel({kMax64, 1}), kMax64);
}

TEST(CheckedNumel, ZeroDims) {
  EXPECT_EQ(checked_numel({0}), 0);
  EXPECT_EQ(checked_numel({3, 0, 5}), 0);
  EXPECT_EQ(checked_numel({0, 1}), 0);
  // A zero anywhere makes the array empty even when the other dims overflow together.
  EXPECT_EQ(checked_numel({kMax64, kMax64, 0}), 0);
  EXPECT_EQ(checked_numel({0, kMax64, kMax64}), 0);
}

TEST(CheckedNumel, NegativeDimensionIsAnError) {
  expect_error(
      [] {
        checked_numel({2, -3});
      },
      ErrorKind::kInvalidArgument, "Shape (2, -3) has a negative dimension -3.");
  expect_error([] { checked_numel({-1}); }, ErrorKind::kInvalidArgument,
               "Shape (-1) has a negative dimension -1.");
  // A zero dim does not excuse a negative one, wherever the two are.
  expect_error(
      [] {
        checked_numel({0, -1});
      },
      ErrorKind::kInvalidArgument, "Shape (0, -1) has a negative dimension -1.");
  expect_error(
      [] {
        checked_numel({-2, 0});
      },
      ErrorKind::kInvalidArgument, "Shape (-2, 0) has a negative dimension -2.");
}

TEST(CheckedNumel, OverflowIsAnError) {
  expect_error(
      [] {
        checked_numel({int64_t{1} << 32, int64_t{1} << 31});
      },
      ErrorKind::kInvalidArgument,
      "Shape (4294967296, 2147483648) has more elements than a 64-bit count can hold.");
  expect_error(
      [] {
        checked_numel({kMax64, 2});
      },
      ErrorKind::kInvalidArgument,
      "Shape (9223372036854775807, 2) has more elements than a 64-bit count can hold.");
  expect_error(
      [] {
        checked_numel({3037000500, 3037000500});
      },
      ErrorKind::kInvalidArgument,
      "Shape (3037000500, 3037000500) has more elements than a 64-bit count can hold.");
  // 3037000499^2 is the largest square below 2^63.
  EXPECT_EQ(checked_numel({3037000499, 3037000499}), int64_t{3037000499} * 3037000499);
  // Overflow in an early pair that later dims would not undo.
  expect_error(
      [] {
        checked_numel({int64_t{1} << 40, int64_t{1} << 40, 1});
      },
      ErrorKind::kInvalidArgument,
      "Shape (1099511627776, 1099511627776, 1) has more elements than a 64-bit count can "
      "hold.");
}

TEST(CheckedNbytes, MultipliesAndDetectsOverflow) {
  EXPECT_EQ(checked_nbytes(0, 16), 0);
  EXPECT_EQ(checked_nbytes(6, 4), 24);
  EXPECT_EQ(checked_nbytes(kMax64, 1), kMax64);
  EXPECT_EQ(checked_nbytes(kMax64 / 8, 8), kMax64 / 8 * 8);
  expect_error([] { checked_nbytes(kMax64 / 8 + 1, 8); }, ErrorKind::kInvalidArgument,
               "1152921504606846976 elements of 8 bytes do not fit a 64-bit byte count.");
  expect_error([] { checked_nbytes(kMax64, 2); }, ErrorKind::kInvalidArgument,
               "9223372036854775807 elements of 2 bytes do not fit a 64-bit byte count.");
  expect_error([] { checked_nbytes(int64_t{1} << 60, 16); }, ErrorKind::kInvalidArgument,
               "1152921504606846976 elements of 16 bytes do not fit a 64-bit byte count.");
}

TEST(CheckedArithmetic, ExactAtTheBoundaries) {
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  int64_t out = 0;
  EXPECT_TRUE(checked_add(kMax64 - 1, 1, &out));
  EXPECT_EQ(out, kMax64);
  EXPECT_FALSE(checked_add(kMax64, 1, &out));
  EXPECT_TRUE(checked_add(kMin64, kMax64, &out));
  EXPECT_EQ(out, -1);
  EXPECT_FALSE(checked_add(kMin64, -1, &out));
  EXPECT_TRUE(checked_sub(0, kMax64, &out));
  EXPECT_EQ(out, -kMax64);
  EXPECT_FALSE(checked_sub(-2, kMax64, &out));
  // 2^31 * 2^32 = 2^63 is one past the largest int64; 2^31 * (2^32 - 1) fits.
  EXPECT_FALSE(checked_mul(int64_t{1} << 31, int64_t{1} << 32, &out));
  EXPECT_TRUE(checked_mul(int64_t{1} << 31, (int64_t{1} << 32) - 1, &out));
  EXPECT_EQ(out, kMax64 - ((int64_t{1} << 31) - 1));     // 2^63 - 2^31
  EXPECT_FALSE(checked_mul(4, int64_t{1} << 62, &out));  // 2^64 wraps to 0 unchecked
  EXPECT_TRUE(checked_mul(1, kMax64, &out));
  EXPECT_EQ(out, kMax64);
  EXPECT_FALSE(checked_mul(-1, kMin64, &out));
}

TEST(ContiguousStrides, RowAndColumnMajor) {
  EXPECT_EQ(contiguous_strides({}, Order::kRowMajor), Strides{});
  EXPECT_EQ(contiguous_strides({}, Order::kColumnMajor), Strides{});
  EXPECT_EQ(contiguous_strides({5}, Order::kRowMajor), (Strides{1}));
  EXPECT_EQ(contiguous_strides({5}, Order::kColumnMajor), (Strides{1}));
  EXPECT_EQ(contiguous_strides({2, 3, 4}, Order::kRowMajor), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({2, 3, 4}, Order::kColumnMajor), (Strides{1, 2, 6}));
  EXPECT_EQ(contiguous_strides({2, 3, 4, 5}, Order::kRowMajor), (Strides{60, 20, 5, 1}));
  EXPECT_EQ(contiguous_strides({2, 3, 4, 5}, Order::kColumnMajor), (Strides{1, 2, 6, 24}));
}

TEST(ContiguousStrides, EmptyShapesWithHugeDimsDoNotOverflow) {
  // R allows dims up to 2^31 - 1 and any rank: beside a zero dim their product may exceed
  // int64 (found by raw_buffer_fuzz under UBSan). The strides stay positive and finite.
  const int64_t m = INT32_MAX;
  for (const Shape& shape : {Shape{0, m, m, m, m}, Shape{m, m, m, m, 0}, Shape{m, 0, m, m, m}}) {
    for (Order order : {Order::kRowMajor, Order::kColumnMajor}) {
      for (int64_t stride : contiguous_strides(shape, order)) {
        EXPECT_GT(stride, 0) << shape_to_tuple(shape);
      }
    }
    EXPECT_EQ(checked_numel(shape), 0);
  }
}

TEST(ContiguousStrides, NeverZeroStrides) {
  // Size-1 axes get the stride a dense layout implies, not 0.
  EXPECT_EQ(contiguous_strides({1, 1}, Order::kRowMajor), (Strides{1, 1}));
  EXPECT_EQ(contiguous_strides({3, 1, 2}, Order::kRowMajor), (Strides{2, 2, 1}));
  EXPECT_EQ(contiguous_strides({3, 1, 2}, Order::kColumnMajor), (Strides{1, 3, 3}));
  EXPECT_EQ(contiguous_strides({1, 4, 1}, Order::kRowMajor), (Strides{4, 1, 1}));
  EXPECT_EQ(contiguous_strides({1, 4, 1}, Order::kColumnMajor), (Strides{1, 1, 4}));
  // Zero-size axes do not zero the strides of the axes outside them either.
  EXPECT_EQ(contiguous_strides({2, 0, 3}, Order::kRowMajor), (Strides{3, 3, 1}));
  EXPECT_EQ(contiguous_strides({2, 0, 3}, Order::kColumnMajor), (Strides{1, 2, 2}));
  for (const Shape& shape : {Shape{0}, Shape{0, 0}, Shape{1, 0, 1}, Shape{5, 1, 0, 1}}) {
    for (Order order : {Order::kRowMajor, Order::kColumnMajor}) {
      for (int64_t stride : contiguous_strides(shape, order)) {
        EXPECT_GT(stride, 0) << shape_to_tuple(shape);
      }
    }
  }
}

// Exact strides, axes of length 1 and 0 included, as contiguous_strides() makes them (the
// expected values are those of the ContiguousStrides tests above).
TEST(HasContiguousStrides, ExactlyTheContiguousStrides) {
  EXPECT_TRUE(has_contiguous_strides({2, 3, 4}, {12, 4, 1}, Order::kRowMajor));
  EXPECT_TRUE(has_contiguous_strides({2, 3, 4}, {1, 2, 6}, Order::kColumnMajor));
  EXPECT_FALSE(has_contiguous_strides({2, 3, 4}, {12, 4, 1}, Order::kColumnMajor));
  EXPECT_FALSE(has_contiguous_strides({2, 3, 4}, {1, 2, 6}, Order::kRowMajor));
  EXPECT_TRUE(has_contiguous_strides({3, 1, 2}, {1, 3, 3}, Order::kColumnMajor));
  // is_contiguous() ignores a length-1 axis's stride; this does not.
  EXPECT_FALSE(has_contiguous_strides({3, 1, 2}, {1, 999, 3}, Order::kColumnMajor));
  EXPECT_TRUE(has_contiguous_strides({2, 0, 3}, {1, 2, 2}, Order::kColumnMajor));
  EXPECT_FALSE(has_contiguous_strides({2, 0, 3}, {1, 2, 0}, Order::kColumnMajor));
  EXPECT_TRUE(has_contiguous_strides({}, {}, Order::kRowMajor));
  EXPECT_FALSE(has_contiguous_strides({2, 3}, {3}, Order::kRowMajor));  // another rank
  EXPECT_FALSE(has_contiguous_strides({2, 3}, {3, 1, 1}, Order::kRowMajor));
}

TEST(IsContiguous, DenseLayouts) {
  const Shape shape{2, 3, 4};
  EXPECT_TRUE(is_contiguous(shape, {12, 4, 1}, Order::kRowMajor));
  EXPECT_FALSE(is_contiguous(shape, {12, 4, 1}, Order::kColumnMajor));
  EXPECT_TRUE(is_contiguous(shape, {1, 2, 6}, Order::kColumnMajor));
  EXPECT_FALSE(is_contiguous(shape, {1, 2, 6}, Order::kRowMajor));
  EXPECT_FALSE(is_contiguous(shape, {24, 8, 2}, Order::kRowMajor));   // every other element
  EXPECT_FALSE(is_contiguous(shape, {-12, 4, 1}, Order::kRowMajor));  // reversed first axis
  EXPECT_FALSE(is_contiguous(shape, {4, 8, 1}, Order::kRowMajor));    // transposed leading axes
  EXPECT_TRUE(is_contiguous({}, {}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({}, {}, Order::kColumnMajor));
  EXPECT_TRUE(is_contiguous({5}, {1}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({5}, {1}, Order::kColumnMajor));
  EXPECT_FALSE(is_contiguous({5}, {-1}, Order::kRowMajor));
  EXPECT_FALSE(is_contiguous({5}, {2}, Order::kColumnMajor));
}

TEST(IsContiguous, SizeOneAxesAreIgnored) {
  EXPECT_TRUE(is_contiguous({3, 1, 2}, {2, 999, 1}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({3, 1, 2}, {2, 0, 1}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({3, 1, 2}, {2, -7, 1}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({1, 1}, {0, 0}, Order::kColumnMajor));
  EXPECT_TRUE(is_contiguous({1, 5}, {42, 1}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({1, 5}, {42, 1}, Order::kColumnMajor));  // one real axis: both
  EXPECT_FALSE(is_contiguous({3, 1, 2}, {1, 999, 4}, Order::kColumnMajor));
  EXPECT_TRUE(is_contiguous({3, 1, 2}, {1, 999, 3}, Order::kColumnMajor));
}

TEST(IsContiguous, EmptyArraysAreContiguousInEveryOrder) {
  EXPECT_TRUE(is_contiguous({0}, {5}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({3, 0}, {-1, 17}, Order::kRowMajor));
  EXPECT_TRUE(is_contiguous({3, 0}, {-1, 17}, Order::kColumnMajor));
  EXPECT_TRUE(is_contiguous({2, 3, 0}, {0, 0, 0}, Order::kColumnMajor));
}

TEST(ShapeText, StringAndTuple) {
  EXPECT_EQ(shape_to_string({}), "");
  EXPECT_EQ(shape_to_string({4}), "4");
  EXPECT_EQ(shape_to_string({2, 3}), "2x3");
  EXPECT_EQ(shape_to_string({2, 0, 10}), "2x0x10");
  EXPECT_EQ(shape_to_string({2, 3}, ", "), "2, 3");
  EXPECT_EQ(shape_to_string({kMax64, 1}), "9223372036854775807x1");
  EXPECT_EQ(shape_to_tuple({}), "()");
  EXPECT_EQ(shape_to_tuple({4}), "(4)");
  EXPECT_EQ(shape_to_tuple({2, 3}), "(2, 3)");
  EXPECT_EQ(shape_to_tuple({1, 2, 3, 4}), "(1, 2, 3, 4)");
  EXPECT_EQ(shape_to_tuple({-1, 2}), "(-1, 2)");
  // Messages stay short at any rank: 16 dims in full, more elided in the middle.
  EXPECT_EQ(shape_to_tuple(Shape(16, 7)), "(7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)");
  Shape many(1000000, 1);
  many.back() = 5;
  EXPECT_EQ(shape_to_tuple(many),
            "(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ... 999984 more ..., 5)");
}

}  // namespace
}  // namespace ndbuf
