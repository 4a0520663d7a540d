// Tests of the sliding form of reduce_window (van Herk / Gil-Werman): hand-worked windows, the
// geometries and inits it declines, and agreement with the window walk (the region body called
// per element, which the kernel never takes a shortcut for) over dtypes, window shapes, strides,
// padding, NaN and signed zeros: maximum, minimum and integers bit for bit, float sums within
// a bound relative to the window's sum of absolute values.
#include "program/ops/reduction/window_slide.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "program/kernels/fast_combine.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<Tensor> slide_of(const Tensor& x, const Tensor& init, const WindowConfig& w,
                               FastBody body) {
  return window_slide(x, init, window_geometry(x.shape(), w, "reduce_window"), body);
}

std::vector<double> slid_f64(const Tensor& x, double init, const WindowConfig& w, FastBody body) {
  const auto r = slide_of(x, f64({}, {init}), w, body);
  EXPECT_TRUE(r.has_value());
  return r ? values<double>(*r) : std::vector<double>{};
}

TEST(ProgramWindowSlide, MovingFoldsByHand) {
  const Tensor x = f64({6}, {1, 2, 3, 4, 5, 6});
  // A trailing moving sum of 3 (padding 2 in front).
  EXPECT_EQ(slid_f64(x, 0, {{3}, {}, {}, {}, {{2, 0}}}, FastBody::kAdd),
            (std::vector<double>{1, 3, 6, 9, 12, 15}));
  // Windows of 4 every 3 over [_ 1 2 3 4 5 6 _ _ _]: {1,2,3}, {3,4,5,6}, {6}.
  EXPECT_EQ(slid_f64(x, 1, {{4}, {3}, {}, {}, {{1, 3}}}, FastBody::kMultiply),
            (std::vector<double>{6, 360, 6}));
  const Tensor y = f64({7}, {3, 1, 4, 1, 5, 9, 2});
  EXPECT_EQ(slid_f64(y, -kInf, {{3}, {}, {}, {}, {}}, FastBody::kMaximum),
            (std::vector<double>{4, 4, 5, 9, 9}));
  EXPECT_EQ(slid_f64(y, kInf, {{2}, {2}, {}, {}, {{0, 1}}}, FastBody::kMinimum),
            (std::vector<double>{1, 1, 5, 2}));
  // A window longer than the axis, and windows wholly in padding (the init).
  EXPECT_EQ(slid_f64(y, -kInf, {{10}, {}, {}, {}, {{9, 0}}}, FastBody::kMaximum),
            (std::vector<double>{3, 3, 4, 4, 5, 9, 9}));
  EXPECT_EQ(slid_f64(f64({2}, {5, 7}), 0, {{1}, {}, {}, {}, {{2, 1}}}, FastBody::kAdd),
            (std::vector<double>{0, 0, 5, 7, 0}));
  // A 2 x 2 max-pool with stride 2 of a 3 x 4 matrix, the last row padded.
  const Tensor m = f64({3, 4}, {1, 5, 2, 0, 7, 3, 8, 6, 4, 9, 1, 2});
  EXPECT_EQ(slid_f64(m, -kInf, {{2, 2}, {2, 2}, {}, {}, {{0, 1}, {0, 0}}}, FastBody::kMaximum),
            (std::vector<double>{7, 8, 9, 2}));
}

TEST(ProgramWindowSlide, DeclinesWhatItCannotFoldSoundly) {
  const Tensor x = f64({5}, {1, 2, 3, 4, 5});
  const WindowConfig moving{{3}, {}, {}, {}, {{2, 0}}};
  EXPECT_FALSE(slide_of(x, f64({}, {1}), moving, FastBody::kAdd).has_value());      // init not 0
  EXPECT_FALSE(slide_of(x, f64({}, {0}), moving, FastBody::kMaximum).has_value());  // not -inf
  EXPECT_FALSE(slide_of(x, f64({}, {kNaN}), moving, FastBody::kAdd).has_value());
  EXPECT_FALSE(slide_of(x, f64({}, {0}), moving, FastBody::kReplace).has_value());
  EXPECT_FALSE(slide_of(x, f64({}, {0}), {{3}, {}, {}, {2}, {}}, FastBody::kAdd).has_value());
  EXPECT_FALSE(slide_of(x, f64({}, {0}), {{3}, {}, {2}, {}, {}}, FastBody::kAdd).has_value());
  EXPECT_FALSE(slide_of(f64({}, {1}), f64({}, {0}), {{}, {}, {}, {}, {}}, FastBody::kAdd));
  EXPECT_FALSE(slide_of(pred({2}, {1, 0}), pred({}, {0}), {{2}, {}, {}, {}, {}}, FastBody::kAdd));
  // An empty input leaves only padding: the walk writes the init.
  const WindowConfig padded{{1}, {}, {}, {}, {{2, 1}}};
  EXPECT_FALSE(slide_of(f64({0}, {}), f64({}, {0}), padded, FastBody::kAdd).has_value());
  EXPECT_EQ(values<double>(
                reduce_window({f64({0}, {})}, {f64({}, {0})}, padded, nullptr, FastBody::kAdd)[0]),
            (std::vector<double>{0, 0, 0}));
  // A declined init still gives the walk's answer through reduce_window: the init folded once,
  // plus once per padding element: 1 + (1 + 1 + 1), 1 + (1 + 1 + 2), 1 + (1 + 2 + 3), ...
  const auto r = reduce_window({x}, {f64({}, {1})}, moving, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(values<double>(r), (std::vector<double>{4, 5, 7, 10, 13}));
}

TEST(ProgramWindowSlide, SignedZerosAndNaNAsTheWalk) {
  // The walk starts from init +0, so a window of -0s sums to +0; from init -0 it stays -0.
  const Tensor z = f64({3}, {-0.0, -0.0, -0.0});
  const auto plus = slid_f64(z, 0.0, {{2}, {}, {}, {}, {}}, FastBody::kAdd);
  const auto minus = slid_f64(z, -0.0, {{2}, {}, {}, {}, {}}, FastBody::kAdd);
  EXPECT_FALSE(std::signbit(plus[0]) || std::signbit(plus[1]));
  EXPECT_TRUE(std::signbit(minus[0]) && std::signbit(minus[1]));
  // Ties between -0 and +0 keep the first in window order, as the walk does.
  const auto ties =
      slid_f64(f64({4}, {-0.0, 0.0, -0.0, 0.0}), -kInf, {{2}, {}, {}, {}, {}}, FastBody::kMaximum);
  EXPECT_TRUE(std::signbit(ties[0]) && !std::signbit(ties[1]) && std::signbit(ties[2]));
  const auto nan =
      slid_f64(f64({5}, {1, kNaN, 2, 3, 4}), kInf, {{2}, {}, {}, {}, {}}, FastBody::kMinimum);
  EXPECT_TRUE(std::isnan(nan[0]) && std::isnan(nan[1]));
  EXPECT_EQ(nan[2], 2);
  EXPECT_EQ(nan[3], 3);
}

TEST(ProgramWindowSlide, LongWindowOverAMillionRunsInLinearTime) {
  const int64_t n = 1000000, w = 1000;  // the walk would visit 1e9 elements
  const std::vector<float> ones(static_cast<size_t>(n), 1.0f);
  const auto r =
      slide_of(f32({n}, ones), scalar_f32(0), {{w}, {}, {}, {}, {{w - 1, 0}}}, FastBody::kAdd);
  ASSERT_TRUE(r.has_value());
  const auto v = values<float>(*r);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[998], 999);
  EXPECT_EQ(v[999], 1000);
  EXPECT_EQ(v[123456], 1000);
  EXPECT_EQ(v.back(), 1000);
}

// A line of one lane folds in a register; the same line as one of three lanes folds through
// the lane loop. Float sums and products round differently in any other order, so the two
// must agree bit for bit.
TEST(ProgramWindowSlide, OneLaneLinesFoldInTheLanesOrder) {
  const int64_t n = 5000;
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> pick(0.5f, 1.5f);
  std::vector<float> line(n), lanes(3 * n);
  for (int64_t i = 0; i < n; ++i) {
    line[i] = pick(rng);
    for (int64_t j = 0; j < 3; ++j) lanes[3 * i + j] = j == 1 ? line[i] : pick(rng);
  }
  for (FastBody body : {FastBody::kAdd, FastBody::kMultiply}) {
    const Tensor init = scalar_f32(body == FastBody::kAdd ? 0.0f : 1.0f);
    for (const auto& [size, stride, low, high] :
         std::vector<std::array<int64_t, 4>>{{37, 1, 36, 0}, {100, 3, 5, 40}, {999, 7, 0, 0}}) {
      const auto one =
          slide_of(f32({n}, line), init, {{size}, {stride}, {}, {}, {{low, high}}}, body);
      const auto three = slide_of(f32({n, 3}, lanes), init,
                                  {{size, 1}, {stride, 1}, {}, {}, {{low, high}, {0, 0}}}, body);
      ASSERT_TRUE(one.has_value() && three.has_value());
      const auto a = values<float>(*one), b = values<float>(*three);
      ASSERT_EQ(3 * a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(std::memcmp(&a[i], &b[3 * i + 1], sizeof(float)), 0)
            << "window " << size << " stride " << stride << " at " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ndbuf::program
