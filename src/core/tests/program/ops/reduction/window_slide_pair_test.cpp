// Two windowed axes of small stride-1 windows slide both passes at once, the first pass's rows
// made into a ring as the second moves on (span_pair() in window_slide.cpp): its results must be
// the two whole passes' bits, for every body, with NaN and signed zeros, over the edges: rows of
// more than one chunk of outputs, runs of output rows split between work items, axes between
// the windowed two, padding larger than the window or negative, and rows too large for the ring
// (which make the two passes).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "program/kernels/fast_combine.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "program/ops/reduction/window_slide.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;
using Padding = std::vector<std::pair<int64_t, int64_t>>;

struct PairCase {
  Shape shape;
  std::vector<int64_t> window;
  Padding padding;
};

std::vector<PairCase> pair_cases() {
  return {
      {{16, 8, 8, 32}, {1, 3, 3, 1}, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}},  // max-pooling, NHWC
      {{2, 9, 40, 40}, {1, 3, 3, 1}, {{0, 0}, {1, 1}, {1, 1}, {0, 0}}},  // rows of two chunks
      {{1, 100, 1600}, {1, 2, 5}, {{0, 0}, {0, 1}, {2, 2}}},             // rows of 1600, runs split
      {{3, 7, 4, 9, 2}, {1, 4, 1, 3, 1}, {{0, 0}, {2, 1}, {0, 0}, {1, 1}, {0, 0}}},  // axis between
      {{5, 12, 11}, {1, 8, 2}, {{0, 0}, {9, -3}, {-1, 0}}},  // padding past the window
      {{2, 6, 30000}, {1, 3, 2}, {{0, 0}, {1, 1}, {0, 1}}},  // rows too large: two passes
      {{13, 11}, {3, 3}, {{1, 1}, {1, 1}}},                  // no outer dims
  };
}

// f32 values with NaNs and many signed zeros for maximum / minimum, near 1 for products.
std::vector<double> pair_values(std::mt19937& gen, int64_t n, FastBody body) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = body == FastBody::kMultiply ? 1 + u(gen) / 64 : u(gen);
    if (body == FastBody::kMaximum || body == FastBody::kMinimum) {
      if (gen() % 23 == 0) x = std::numeric_limits<double>::quiet_NaN();
      if (gen() % 5 == 0) x = gen() % 2 ? 0.0 : -0.0;
    }
  }
  return v;
}

double identity_of(FastBody body) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (body) {
    case FastBody::kAdd:
      return 0;
    case FastBody::kMultiply:
      return 1;
    case FastBody::kMaximum:
      return -inf;
    default:
      return inf;
  }
}

void expect_same_bytes(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), static_cast<size_t>(a.nbytes())), 0);
}

TEST(ProgramWindowSlidePair, RingOfRowsGivesTheWholePassesBits) {
  std::mt19937 gen(41);
  for (const PairCase& c : pair_cases()) {
    WindowConfig w{c.window, {}, {}, {}, c.padding};
    const WindowGeometry g = window_geometry(c.shape, w, "reduce_window");
    for (FastBody body :
         {FastBody::kAdd, FastBody::kMultiply, FastBody::kMaximum, FastBody::kMinimum}) {
      SCOPED_TRACE(shape_to_tuple(c.shape) + " body " + std::to_string(static_cast<int>(body)));
      const std::vector<double> v = pair_values(gen, checked_numel(c.shape), body);
      for (const auto& [x, init] : {std::pair{f32(c.shape, std::vector<float>(v.begin(), v.end())),
                                              f32({}, {static_cast<float>(identity_of(body))})},
                                    std::pair{bf16(c.shape, v), bf16({}, {identity_of(body)})}}) {
        const auto blocked = window_slide(x, init, g, body, true);
        const auto whole = window_slide(x, init, g, body, false);
        ASSERT_TRUE(blocked.has_value() && whole.has_value());
        expect_same_bytes(*blocked, *whole);
      }
    }
  }
}

// A hand-worked 3 x 3 maximum of a 4 x 4 matrix padded by one on every side: the ring's
// passes, not only their agreement with the whole ones.
TEST(ProgramWindowSlidePair, MaximumOfAPaddedMatrixByHand) {
  const Tensor x = f32({4, 4}, {1, 5, 2, 0, 3, 9, 4, 1, 7, 2, 8, 6, 0, 3, 1, 2});
  WindowConfig w{{3, 3}, {}, {}, {}, {{1, 1}, {1, 1}}};
  const auto y = window_slide(x, f32({}, {-std::numeric_limits<float>::infinity()}),
                              window_geometry(x.shape(), w, "reduce_window"), FastBody::kMaximum);
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(values<float>(*y),
            (std::vector<float>{9, 9, 9, 4, 9, 9, 9, 8, 9, 9, 9, 8, 7, 8, 8, 8}));
}

}  // namespace
}  // namespace ndbuf::program
