// Tests of reduce_window: hand-worked windows, padding, dilations, and an explicit padded-array
// reference on random configurations.
#include "program/ops/reduction/reduce_window.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/ops/reduction/window_reference.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

const RegionFn kAddF64 =
    binary_region<double>(DType::kF64, [](double a, double b) { return a + b; });

std::vector<double> sum_windows(const Tensor& x, const WindowConfig& w, double init = 0) {
  return values<double>(reduce_window({x}, {f64({}, {init})}, w, nullptr, FastBody::kAdd)[0]);
}

TEST(ProgramReduceWindow, StridesPaddingAndDilationsByHand) {
  const Tensor x = f64({5}, {1, 2, 3, 4, 5});
  // Padded [0 1 2 3 4 5], windows of 2 every 2.
  EXPECT_EQ(sum_windows(x, {{2}, {2}, {}, {}, {{1, 0}}}), (std::vector<double>{1, 5, 9}));
  // Window dilation 2 pairs elements two apart.
  EXPECT_EQ(sum_windows(x, {{2}, {}, {}, {2}, {}}), (std::vector<double>{4, 6, 8}));
  // Base dilation 2: [1 _ 2 _ 3] with holes holding the init value 0.
  EXPECT_EQ(sum_windows(f64({3}, {1, 2, 3}), {{3}, {}, {2}, {}, {}}),
            (std::vector<double>{3, 2, 5}));
  // Negative padding drops the first element.
  EXPECT_EQ(sum_windows(f64({4}, {1, 2, 3, 4}), {{1}, {}, {}, {}, {{-1, 0}}}),
            (std::vector<double>{2, 3, 4}));
  // Padding holds the init value, which is folded in like any element: 1 + (1 + 5 + 1).
  EXPECT_EQ(sum_windows(f64({1}, {5}), {{3}, {}, {}, {}, {{1, 1}}}, 1), (std::vector<double>{8}));
}

TEST(ProgramReduceWindow, MaxPoolOfAStridedInput) {
  const Tensor x = i32({4, 4}, {1, 5, 2, 0, 3, 4, 8, 1, 0, 0, 1, 1, 9, 2, 1, 7});
  const auto r = reduce_window({column_major(x)}, {scalar_i32(std::numeric_limits<int32_t>::min())},
                               {{2, 2}, {2, 2}, {}, {}, {}}, nullptr, FastBody::kMaximum);
  EXPECT_EQ(r[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values<int32_t>(r[0]), (std::vector<int32_t>{5, 8, 9, 7}));
}

TEST(ProgramReduceWindow, HalfNaNAndEmptyResults) {
  EXPECT_EQ(half_values(reduce_window({f16({3}, {2048, 1, 1})}, {f16({}, {0})},
                                      {{3}, {}, {}, {}, {}}, nullptr, FastBody::kAdd)[0]),
            (std::vector<double>{2050}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto m =
      values<float>(reduce_window({f32({3}, {1, nan, 2})}, {scalar_f32(-1e30f)},
                                  {{2}, {}, {}, {}, {}}, nullptr, FastBody::kMaximum)[0]);
  EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  EXPECT_EQ(reduce_window({f32({2}, {1, 2})}, {scalar_f32(0)}, {{3}, {}, {}, {}, {}}, nullptr,
                          FastBody::kAdd)[0]
                .shape(),
            (Shape{0}));
  EXPECT_EQ(sum_windows(f64({0}, {}), {{1}, {}, {}, {}, {{1, 1}}}, 2), (std::vector<double>{4, 4}));
}

TEST(ProgramReduceWindow, VariadicMaxWithIndex) {
  const RegionFn body = [](const std::vector<Tensor>& a) {
    const bool take = values<float>(a[2])[0] > values<float>(a[0])[0];
    return std::vector<Tensor>{take ? a[2] : a[0], take ? a[3] : a[1]};
  };
  const auto r = reduce_window({f32({4}, {3, 1, 4, 1}), i32({4}, {0, 1, 2, 3})},
                               {scalar_f32(-1), scalar_i32(-1)}, {{2}, {}, {}, {}, {}}, body);
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{3, 4, 4}));
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{0, 2, 2}));
}

TEST(ProgramReduceWindow, MatchesPaddedArrayReference) {
  std::mt19937 rng(21);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int trial = 0; trial < 30; ++trial) {
    const size_t rank = 1 + rng() % 3;
    const Shape s = random_shape(rng, rank, 5);
    const WindowConfig w = random_window(rng, rank);
    std::vector<double> x(checked_numel(s));
    for (auto& v : x) v = static_cast<double>(pick(-9, 9));
    Shape expected_shape;
    const auto expected = naive(x, s, w, 0.5, expected_shape);
    const Tensor input = trial % 2 ? column_major(f64(s, x)) : f64(s, x);
    const auto fast = reduce_window({input}, {f64({}, {0.5})}, w, nullptr, FastBody::kAdd)[0];
    EXPECT_EQ(fast.shape(), expected_shape);
    EXPECT_EQ(values<double>(fast), expected);
    EXPECT_EQ(values<double>(reduce_window({input}, {f64({}, {0.5})}, w, kAddF64)[0]), expected);
    EXPECT_EQ(reduce_window_shape(s, w), expected_shape);
  }
}

TEST(ProgramReduceWindow, RejectsBadConfigs) {
  const Tensor x = f64({3}, {1, 2, 3});
  EXPECT_THROW(sum_windows(x, {{}, {}, {}, {}, {}}), Error);
  EXPECT_THROW(sum_windows(x, {{0}, {}, {}, {}, {}}), Error);
  EXPECT_THROW(sum_windows(x, {{1}, {0}, {}, {}, {}}), Error);
  EXPECT_THROW(sum_windows(x, {{1}, {1, 1}, {}, {}, {}}), Error);
  EXPECT_THROW(sum_windows(x, {{1}, {}, {}, {}, {{0, 0}, {0, 0}}}), Error);
  EXPECT_THROW(reduce_window({x}, {f64({}, {0})}, {{1}, {}, {}, {}, {}}, nullptr), Error);
}

}  // namespace
}  // namespace ndbuf::program
