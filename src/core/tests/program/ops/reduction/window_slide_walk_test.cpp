// The sliding form of reduce_window against the window walk (reduce_window with an unrecognised
// body, kNone: the region below is called once per window element, in the walk's order) on
// random data: f32, f64, i32 and bf16; 1-d, 2-d and 3-d windows with strides, low and high
// padding (negative too), windows longer than their axis, window 1, axes that are no multiple
// of the window, and NaN for maximum / minimum. Maximum, minimum and integer folds must match
// bit for bit; float sums within (2 w + 2) eps times the window's sum of absolute values (two
// sequential folds of at most w elements each, against the walk's one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "program/kernels/fast_combine.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "program/ops/reduction/window_slide.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

struct Case {
  Shape shape;
  WindowConfig window;
};

std::vector<Case> cases() {
  using P = std::pair<int64_t, int64_t>;
  return {
      {{37}, {{5}, {}, {}, {}, {P{4, 0}}}},                      // trailing moving window
      {{37}, {{5}, {2}, {}, {}, {P{2, 3}}}},                     // stride, padding both ends
      {{40}, {{8}, {3}, {}, {}, {P{-3, 5}}}},                    // negative low padding
      {{7}, {{12}, {}, {}, {}, {P{11, 0}}}},                     // window longer than the axis
      {{7}, {{12}, {2}, {}, {}, {P{3, 6}}}},                     // longer, strided, split padding
      {{9}, {{1}, {2}, {}, {}, {P{1, 2}}}},                      // window 1 with stride and padding
      {{100}, {{10}, {10}, {}, {}, {}}},                         // disjoint windows
      {{101}, {{7}, {13}, {}, {}, {P{0, 6}}}},                   // stride past the window
      {{9000}, {{5}, {}, {}, {}, {P{4, 0}}}},                    // runs of windows in parallel
      {{12001}, {{8}, {2}, {}, {}, {P{0, 7}}}},                  // runs, strided
      {{13, 11}, {{3, 3}, {}, {}, {}, {P{1, 1}, P{1, 1}}}},      // 3 x 3, same size
      {{13, 11}, {{2, 2}, {2, 2}, {}, {}, {}}},                  // 2 x 2 pooling
      {{13, 11}, {{4, 3}, {1, 2}, {}, {}, {P{3, 0}, P{0, 2}}}},  // mixed strides and padding
      {{13, 11}, {{1, 5}, {}, {}, {}, {P{0, 0}, P{4, 0}}}},      // along the last axis only
      {{13, 11}, {{6, 1}, {}, {}, {}, {P{5, 0}, P{0, 0}}}},      // along the first axis only
      {{3, 13, 11}, {{1, 3, 4}, {1, 2, 1}, {}, {}, {P{0, 0}, P{1, 1}, P{2, 1}}}},
      {{4, 6, 300}, {{2, 1, 1}, {}, {}, {}, {P{1, 0}, P{0, 0}, P{0, 0}}}},  // wide inner lanes
      // Stride-1 windows of at most 8 fold directly (span_axis()): lines longer than one chunk
      // of 1024 outputs, window 8 against 9 (the sliding folds), negative and long padding,
      // windows longer than their axis, a pooling window over rows that span chunks.
      {{2, 2500}, {{1, 7}, {}, {}, {}, {P{0, 0}, P{3, 3}}}},
      {{5, 300, 4}, {{1, 8, 1}, {}, {}, {}, {P{0, 0}, P{-2, 6}, P{0, 0}}}},
      {{5, 300, 4}, {{1, 9, 1}, {}, {}, {}, {P{0, 0}, P{4, 4}, P{0, 0}}}},
      {{3, 5}, {{1, 8}, {}, {}, {}, {P{0, 0}, P{7, 0}}}},
      {{6, 40, 30}, {{1, 3, 3}, {}, {}, {}, {P{0, 0}, P{1, 1}, P{1, 1}}}},
      {{3, 9, 10, 2}, {{2, 2, 2, 1}, {}, {}, {}, {P{1, 0}, P{0, 1}, P{1, 0}, P{0, 0}}}},
  };
}

template <class T>
DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, double>) return DType::kF64;
  return DType::kI32;
}

template <class T>
RegionFn region_of(FastBody body) {
  switch (body) {
    case FastBody::kAdd:
      return binary_region<T>(dtype_of<T>(), [](T a, T b) { return add_values(a, b); });
    case FastBody::kMultiply:
      return binary_region<T>(dtype_of<T>(), [](T a, T b) { return multiply_values(a, b); });
    case FastBody::kMaximum:
      return binary_region<T>(dtype_of<T>(), [](T a, T b) { return max_values(a, b); });
    default:
      return binary_region<T>(dtype_of<T>(), [](T a, T b) { return min_values(a, b); });
  }
}

template <class T>
T identity_for(FastBody body) {
  using L = std::numeric_limits<T>;
  if (body == FastBody::kAdd) return T(0);
  if (body == FastBody::kMultiply) return T(1);
  const T big = L::has_infinity ? L::infinity() : L::max();
  if (body == FastBody::kMaximum) return L::has_infinity ? -big : L::lowest();
  return big;
}

// Random elements: floats in [-1, 1] (sums), near 1 (products, so long windows stay finite),
// with NaNs and many signed zeros (ties: the first in window order wins) for maximum / minimum;
// integers across the range for sums (they wrap) and small otherwise. `round` maps each value to
// one the tested dtype holds (bf16).
template <class T>
std::vector<T> random_values(std::mt19937& gen, int64_t n, FastBody body, double (*round)(double)) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(),
                                             std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> small(-9, 9);
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(body == FastBody::kAdd ? any(gen) : small(gen));
    } else {
      double x = body == FastBody::kMultiply ? 1 + u(gen) / 64 : u(gen);
      const bool extreme = body == FastBody::kMaximum || body == FastBody::kMinimum;
      if (extreme && gen() % 23 == 0) x = NAN;
      if (extreme && gen() % 5 == 0) x = gen() % 2 ? 0.0 : -0.0;  // ties the walk resolves
      v[i] = static_cast<T>(round(x));
    }
  }
  return v;
}

double as_is(double x) { return x; }
double to_bf16_value(double x) { return to_double(to_bfloat16(x)); }

// The window sums of |data| by the walk (the scale of a float sum's rounding error).
template <class T>
std::vector<T> abs_sums(const std::vector<T>& data, const Case& c) {
  std::vector<T> a(data.size());
  for (size_t i = 0; i < data.size(); ++i) a[i] = std::abs(data[i]);
  const Tensor zero = tensor_of(dtype_of<T>(), {}, std::vector<T>{0});
  return values<T>(reduce_window({tensor_of(dtype_of<T>(), c.shape, a)}, {zero}, c.window,
                                 region_of<T>(FastBody::kAdd))[0]);
}

// The same values stored column-major slide with no transposing copy to a column-major result
// holding the row-major slide's bits, sums included: the passes take the axes in the same
// order and fold each output's elements in the same order.
void expect_column_major_same(const Tensor& x, const Tensor& init, const Case& c, FastBody body,
                              const Tensor& row_major_result) {
  if (x.rank() < 2) return;  // a vector is row-major too: the row-major slide takes it
  const auto slid = window_slide_column_major(column_major(x), init,
                                              window_geometry(x.shape(), c.window, "rw"), body);
  ASSERT_TRUE(slid.has_value());
  EXPECT_TRUE(slid->is_contiguous(Order::kColumnMajor));
  const Tensor dense = make_dense(*slid, Order::kRowMajor);
  ASSERT_EQ(dense.nbytes(), row_major_result.nbytes());
  EXPECT_EQ(std::memcmp(dense.data(), row_major_result.data(),
                        static_cast<size_t>(row_major_result.nbytes())),
            0);
}

// Slides `x` and compares with the walk of `reference` (the same values as T, whose results
// `round` maps to x's dtype); `step` is the relative size of one step of x's dtype (bf16) or 0.
template <class T>
void expect_matches_walk(const Tensor& x, const Tensor& init, const std::vector<T>& data,
                         const Case& c, FastBody body, double eps, double (*round)(double),
                         double step) {
  const auto slid = window_slide(x, init, window_geometry(x.shape(), c.window, "rw"), body);
  ASSERT_TRUE(slid.has_value());
  const std::vector<double> got = x.dtype() == DType::kBF16 ? half_values(*slid) : [&] {
    const auto v = values<T>(*slid);
    return std::vector<double>(v.begin(), v.end());
  }();
  const Tensor reference = tensor_of(dtype_of<T>(), c.shape, data);
  const Tensor ref_init = tensor_of(dtype_of<T>(), {}, std::vector<T>{identity_for<T>(body)});
  const auto walked =
      values<T>(reduce_window({reference}, {ref_init}, c.window, region_of<T>(body))[0]);
  ASSERT_EQ(got.size(), walked.size());
  expect_column_major_same(x, init, c, body, *slid);
  std::vector<T> scale;
  if constexpr (std::is_floating_point_v<T>) {
    if (body == FastBody::kAdd) scale = abs_sums(data, c);
  }
  const double w = static_cast<double>(checked_numel(c.window.window_dimensions));
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = round(static_cast<double>(walked[i]));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else if (std::is_integral_v<T> || body == FastBody::kMaximum || body == FastBody::kMinimum) {
      EXPECT_EQ(got[i], want) << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << i;
    } else {
      const double size = scale.empty() ? std::abs(want) : static_cast<double>(scale[i]);
      EXPECT_LE(std::abs(got[i] - want), (2 * w + 2) * eps * size + step * std::abs(want)) << i;
    }
  }
}

const FastBody kBodies[] = {FastBody::kAdd, FastBody::kMultiply, FastBody::kMaximum,
                            FastBody::kMinimum};

template <class T>
void sweep(double eps) {
  std::mt19937 gen(29);
  for (const Case& c : cases()) {
    for (FastBody body : kBodies) {
      SCOPED_TRACE(shape_to_tuple(c.shape) + " window " +
                   shape_to_tuple(c.window.window_dimensions) + " body " +
                   std::to_string(static_cast<int>(body)));
      const auto data = random_values<T>(gen, checked_numel(c.shape), body, as_is);
      const Tensor x = tensor_of(dtype_of<T>(), c.shape, data);
      const Tensor init = tensor_of(dtype_of<T>(), {}, std::vector<T>{identity_for<T>(body)});
      expect_matches_walk<T>(x, init, data, c, body, eps, as_is, 0);
    }
  }
}

TEST(ProgramWindowSlideWalk, F32) { sweep<float>(std::ldexp(1.0, -24)); }
TEST(ProgramWindowSlideWalk, F64) { sweep<double>(std::ldexp(1.0, -53)); }
TEST(ProgramWindowSlideWalk, I32) { sweep<int32_t>(0); }

// bf16 folds in f32 and rounds each result once, like the fast walk: the reference walks the
// same values as f32 and rounds its result to bf16 (one bf16 step of slack for float sums).
TEST(ProgramWindowSlideWalk, BF16) {
  std::mt19937 gen(31);
  for (const Case& c : cases()) {
    for (FastBody body : kBodies) {
      SCOPED_TRACE(shape_to_tuple(c.shape) + " body " + std::to_string(static_cast<int>(body)));
      const auto data = random_values<float>(gen, checked_numel(c.shape), body, to_bf16_value);
      const std::vector<double> wide(data.begin(), data.end());
      const Tensor init = bf16({}, {identity_for<double>(body)});
      expect_matches_walk<float>(bf16(c.shape, wide), init, data, c, body, std::ldexp(1.0, -24),
                                 to_bf16_value, std::ldexp(1.0, -7));
    }
  }
}

}  // namespace
}  // namespace ndbuf::program
