// Tests of slicing rules, bounds and steps.
#include "ndbuf/harray/slice.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

// A row-major f64 tensor holding 0, 1, 2, ... in memory order.
Tensor iota(const Shape& shape) {
  Tensor t = Tensor::allocate(DType::kF64, shape, Order::kRowMajor);
  auto* p = static_cast<double*>(t.data());
  std::iota(p, p + t.numel(), 0.0);
  return t;
}

// The elements of a view in row-major order.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  if (out.empty()) return out;  // copy_to_dense's memcpy must not see a null destination
  copy_to_dense(t, out.data(), Order::kRowMajor);
  return out;
}

using V = std::vector<double>;
using S = Shape;
constexpr std::nullopt_t NA = std::nullopt;
AxisSlice R(std::optional<int64_t> start = NA, std::optional<int64_t> end = NA,
            std::optional<int64_t> step = NA) {
  return AxisSlice::range(start, end, step);
}
AxisSlice I(int64_t i) { return AxisSlice::at(i); }

TEST(Slice, EmptyTensorsWithHugeDimsSliceWithoutOverflow) {
  // An empty tensor whose other dims multiply beyond int64: indexing and striding it must not
  // overflow its offset or strides (its views address nothing and keep its offset).
  const int64_t m = INT32_MAX;
  const Tensor t = Tensor::allocate(DType::kF64, {m, m, m, m, 0}, Order::kRowMajor);
  const Tensor v = slice(t, {I(m - 1), I(-1), R(NA, NA, 3), R(0, 2, 1), R()});
  EXPECT_EQ(v.shape(), S({m / 3 + 1, 2, 0}));
  EXPECT_EQ(v.offset(), t.offset());
  EXPECT_EQ(v.numel(), 0);
  for (int64_t s : v.strides()) EXPECT_NE(s, 0);
  const Tensor w = slice(v, {R(NA, NA, -5), I(1), R()});
  EXPECT_EQ(w.shape(), S({(m / 3) / 5 + 1, 0}));
  EXPECT_EQ(w.data(), t.data());
}

TEST(Slice, FullRangeIsTheSameView) {
  const Tensor t = iota({4, 3});
  const Tensor v = slice(t, {R(NA, NA, NA), R(NA, NA, NA)});
  EXPECT_EQ(v.shape(), S({4, 3}));
  EXPECT_EQ(v.strides(), t.strides());
  EXPECT_EQ(v.data(), t.data());
  EXPECT_EQ(v.storage(), t.storage());
  EXPECT_TRUE(v.is_contiguous(Order::kRowMajor));
}

TEST(Slice, RangesTakeSubBlocksAsViews) {
  const Tensor t = iota({4, 3});
  const Tensor v = slice(t, {R(0, 2, 1), R(1, 3, 1)});
  EXPECT_EQ(v.shape(), S({2, 2}));
  EXPECT_EQ(v.strides(), Strides({3, 1}));
  EXPECT_EQ(values(v), V({1, 2, 4, 5}));
  EXPECT_FALSE(v.is_contiguous(Order::kRowMajor));
  EXPECT_EQ(v.storage(), t.storage());
  EXPECT_EQ(static_cast<double*>(v.data()), static_cast<double*>(t.data()) + 1);
}

TEST(Slice, RowRangeOfAContiguousArrayStaysContiguous) {
  const Tensor t = iota({4, 3});
  const Tensor v = slice(t, {R(1, 3, NA), R()});
  EXPECT_EQ(values(v), V({3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(v.is_contiguous(Order::kRowMajor));
  EXPECT_EQ(v.offset(), 3);
}

TEST(Slice, IndexRemovesTheAxis) {
  const Tensor t = iota({4, 3});
  const Tensor row = slice(t, {I(2), R()});
  EXPECT_EQ(row.shape(), S({3}));
  EXPECT_EQ(values(row), V({6, 7, 8}));
  const Tensor col = slice(t, {R(), I(1)});
  EXPECT_EQ(col.shape(), S({4}));
  EXPECT_EQ(col.strides(), Strides({3}));
  EXPECT_EQ(values(col), V({1, 4, 7, 10}));
  const Tensor scalar = slice(t, {I(3), I(2)});
  EXPECT_EQ(scalar.shape(), S({}));
  EXPECT_EQ(values(scalar), V({11}));
}

TEST(Slice, NegativeIndexCountsFromTheBack) {
  const Tensor t = iota({4, 3});
  EXPECT_EQ(values(slice(t, {I(-1), R()})), V({9, 10, 11}));
  EXPECT_EQ(values(slice(t, {I(-4), I(-3)})), V({0}));
}

TEST(Slice, MissingPartsTakeDefaults) {
  const Tensor t = iota({6});
  EXPECT_EQ(values(slice(t, {R(NA, NA, NA)})), V({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(slice(t, {R(2, NA, NA)})), V({2, 3, 4, 5}));
  EXPECT_EQ(values(slice(t, {R(NA, 3, NA)})), V({0, 1, 2}));
  EXPECT_EQ(values(slice(t, {R(NA, NA, 2)})), V({0, 2, 4}));
}

TEST(Slice, PositiveStepsSkip) {
  const Tensor t = iota({7});
  EXPECT_EQ(values(slice(t, {R(1, 7, 3)})), V({1, 4}));
  EXPECT_EQ(values(slice(t, {R(0, 7, 3)})), V({0, 3, 6}));
  EXPECT_EQ(values(slice(t, {R(0, 7, 7)})), V({0}));
  EXPECT_EQ(values(slice(t, {R(0, 7, 100)})), V({0}));
  const Tensor v = slice(t, {R(0, 7, 2)});
  EXPECT_EQ(v.strides(), Strides({2}));
  EXPECT_EQ(values(v), V({0, 2, 4, 6}));
}

TEST(Slice, NegativeStartAndEndCountFromTheBack) {
  const Tensor t = iota({5});
  EXPECT_EQ(values(slice(t, {R(-2, NA, NA)})), V({3, 4}));
  EXPECT_EQ(values(slice(t, {R(NA, -1, NA)})), V({0, 1, 2, 3}));
  EXPECT_EQ(values(slice(t, {R(-5, -3, NA)})), V({0, 1}));
}

TEST(Slice, NegativeStepsWalkFromTheEndLikeNdarray) {
  const Tensor t = iota({4});
  EXPECT_EQ(values(slice(t, {R(NA, NA, -2)})), V({3, 1}));
  EXPECT_EQ(values(slice(t, {R(NA, NA, -1)})), V({3, 2, 1, 0}));
  EXPECT_EQ(values(slice(t, {R(0, 3, -2)})), V({2, 0}));
  EXPECT_EQ(values(slice(t, {R(1, 4, -2)})), V({3, 1}));
  EXPECT_EQ(values(slice(t, {R(1, 3, -1)})), V({2, 1}));
  EXPECT_EQ(values(slice(t, {R(NA, NA, -3)})), V({3, 0}));
  EXPECT_EQ(values(slice(t, {R(NA, NA, -4)})), V({3}));
  EXPECT_EQ(values(slice(iota({5}), {R(NA, NA, -2)})), V({4, 2, 0}));
  const Tensor v = slice(t, {R(NA, NA, -1)});
  EXPECT_EQ(v.strides(), Strides({-1}));
  EXPECT_EQ(static_cast<double*>(v.data()), static_cast<double*>(t.data()) + 3);
  EXPECT_FALSE(v.is_contiguous(Order::kRowMajor));
}

TEST(Slice, NegativeStepsOnTwoAxes) {
  const Tensor t = iota({3, 4});
  const Tensor v = slice(t, {R(NA, NA, -1), R(NA, NA, -2)});
  EXPECT_EQ(v.shape(), S({3, 2}));
  EXPECT_EQ(v.strides(), Strides({-4, -2}));
  EXPECT_EQ(values(v), V({11, 9, 7, 5, 3, 1}));
}

TEST(Slice, StartAfterEndIsEmpty) {
  const Tensor t = iota({4, 3});
  const Tensor v = slice(t, {R(3, 1, NA), R()});
  EXPECT_EQ(v.shape(), S({0, 3}));
  EXPECT_EQ(v.numel(), 0);
  EXPECT_TRUE(v.is_contiguous(Order::kRowMajor));
  EXPECT_EQ(slice(t, {R(4, NA, NA), R()}).shape(), S({0, 3}));
  EXPECT_EQ(slice(t, {R(2, 2, NA), R()}).shape(), S({0, 3}));
  EXPECT_EQ(slice(t, {R(3, 1, -1), R()}).shape(), S({0, 3}));
  EXPECT_EQ(slice(t, {R(-1, -3, NA), R()}).shape(), S({0, 3}));
}

TEST(Slice, EmptyAxisStaysEmpty) {
  const Tensor t = iota({0, 3});
  EXPECT_EQ(slice(t, {R(), R(1, 3, NA)}).shape(), S({0, 2}));
  EXPECT_EQ(slice(t, {R(NA, NA, -1), I(2)}).shape(), S({0}));
  EXPECT_EQ(slice(t, {R(0, 0, NA), I(-3)}).shape(), S({0}));
}

TEST(Slice, SliceOfASliceComposes) {
  const Tensor t = iota({4, 6});
  const Tensor a = slice(t, {R(1, 4, NA), R(NA, NA, 2)});  // rows 1..3, cols 0, 2, 4
  EXPECT_EQ(values(a), V({6, 8, 10, 12, 14, 16, 18, 20, 22}));
  const Tensor b = slice(a, {R(NA, NA, -1), R(1, NA, NA)});
  EXPECT_EQ(b.shape(), S({3, 2}));
  EXPECT_EQ(values(b), V({20, 22, 14, 16, 8, 10}));
  const Tensor c = slice(b, {I(-1), I(0)});
  EXPECT_EQ(values(c), V({8}));
  EXPECT_EQ(c.storage(), t.storage());
  const Tensor d = slice(b, {R(NA, NA, -1), R(NA, NA, -1)});
  EXPECT_EQ(values(d), V({10, 8, 16, 14, 22, 20}));
}

TEST(Slice, ThreeDimensions) {
  const Tensor t = iota({2, 3, 4});
  const Tensor v = slice(t, {I(1), R(NA, NA, 2), R(1, 3, NA)});
  EXPECT_EQ(v.shape(), S({2, 2}));
  EXPECT_EQ(values(v), V({13, 14, 21, 22}));
}

TEST(Slice, ZeroDimensionalTensorTakesAnEmptySpec) {
  const Tensor t = iota({});
  const Tensor v = slice(t, {});
  EXPECT_EQ(v.shape(), S({}));
  EXPECT_EQ(values(v), V({0}));
}

TEST(Slice, LengthOneResultsNeverStoreZeroStrides) {
  const Tensor t = iota({4, 3});
  const Tensor v = slice(t, {R(2, 3, NA), R(0, 3, 5)});
  EXPECT_EQ(v.shape(), S({1, 1}));
  for (int64_t s : v.strides()) EXPECT_NE(s, 0);
  EXPECT_EQ(values(v), V({6}));
  const Tensor w = slice(t, {R(NA, NA, INT64_MAX), R(NA, NA, INT64_MIN)});
  EXPECT_EQ(values(w), V({2}));
}

std::string error_message(const Tensor& t, const SliceSpec& spec, ErrorKind kind) {
  try {
    slice(t, spec);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(Slice, OutOfBoundsErrorsNameAxisValueAndLength) {
  const Tensor t = iota({4, 3});
  EXPECT_EQ(error_message(t, {R(), I(3)}, ErrorKind::kIndex),
            "Index 3 is out of bounds for axis 2 of length 3.");
  EXPECT_EQ(error_message(t, {I(-5), R()}, ErrorKind::kIndex),
            "Index -5 is out of bounds for axis 1 of length 4.");
  EXPECT_EQ(error_message(t, {R(5, NA, NA), R()}, ErrorKind::kIndex),
            "Slice start 5 is out of bounds for axis 1 of length 4.");
  EXPECT_EQ(error_message(t, {R(), R(NA, 4, NA)}, ErrorKind::kIndex),
            "Slice end 4 is out of bounds for axis 2 of length 3.");
  EXPECT_EQ(error_message(t, {R(-5, NA, NA), R()}, ErrorKind::kIndex),
            "Slice start -5 is out of bounds for axis 1 of length 4.");
  EXPECT_EQ(error_message(t, {R(), R(NA, -4, NA)}, ErrorKind::kIndex),
            "Slice end -4 is out of bounds for axis 2 of length 3.");
  EXPECT_EQ(error_message(t, {R(), R(NA, NA, 0)}, ErrorKind::kInvalidArgument),
            "Slice step 0 is invalid for axis 2 of length 3: the step must not be 0.");
  EXPECT_EQ(error_message(iota({0}), {I(0)}, ErrorKind::kIndex),
            "Index 0 is out of bounds for axis 1 of length 0.");
}

TEST(Slice, ExtremeValuesAreErrorsNotOverflows) {
  const Tensor t = iota({4});
  EXPECT_EQ(error_message(t, {I(INT64_MIN)}, ErrorKind::kIndex),
            "Index -9223372036854775808 is out of bounds for axis 1 of length 4.");
  EXPECT_EQ(error_message(t, {I(INT64_MAX)}, ErrorKind::kIndex),
            "Index 9223372036854775807 is out of bounds for axis 1 of length 4.");
  EXPECT_EQ(error_message(t, {R(INT32_MIN, NA, NA)}, ErrorKind::kIndex),
            "Slice start -2147483648 is out of bounds for axis 1 of length 4.");
}

TEST(Slice, SpecLengthMustMatchRank) {
  const Tensor t = iota({4, 3});
  EXPECT_EQ(error_message(t, {R()}, ErrorKind::kInvalidArgument),
            "The list must have the same length as the number of dimensions.");
  EXPECT_EQ(error_message(t, {R(), R(), R()}, ErrorKind::kInvalidArgument),
            "The list must have the same length as the number of dimensions.");
}

TEST(Slice, BoundsAtTheAxisLengthAreAllowed) {
  const Tensor t = iota({3});
  EXPECT_EQ(slice(t, {R(3, 3, NA)}).shape(), S({0}));
  EXPECT_EQ(slice(t, {R(-3, 3, NA)}).shape(), S({3}));
  EXPECT_EQ(values(slice(t, {R(0, -3, NA)})), V({}));
}

TEST(ParseAxisSlice, OneValueIsAnIndexThreeAreARange) {
  const int32_t na = kRIntegerNA;
  const int32_t one[] = {-2};
  const AxisSlice a = parse_axis_slice(one, 1, na, 0);
  EXPECT_EQ(a.kind, AxisSlice::Kind::kIndex);
  EXPECT_EQ(a.index, -2);
  const int32_t three[] = {na, 5, na};
  const AxisSlice b = parse_axis_slice(three, 3, na, 0);
  EXPECT_EQ(b.kind, AxisSlice::Kind::kRange);
  EXPECT_FALSE(b.start.has_value());
  EXPECT_EQ(b.end, 5);
  EXPECT_FALSE(b.step.has_value());
}

TEST(ParseAxisSlice, RejectsOtherLengthsAndMissingIndex) {
  const int32_t na = kRIntegerNA;
  const int32_t two[] = {1, 2};
  try {
    parse_axis_slice(two, 2, na, 1);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_STREQ(e.what(), "Each element must have a length of 1 or 3 (axis 2 has length 2).");
  }
  EXPECT_THROW(parse_axis_slice(two, 0, na, 0), Error);
  const int32_t missing[] = {na};
  try {
    parse_axis_slice(missing, 1, na, 0);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Index NA is not allowed for axis 1: an index must be a whole number.");
  }
}

}  // namespace
}  // namespace ndbuf
