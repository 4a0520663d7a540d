// Tests of the scan form of reduce_window: which geometries are scans, hand-worked prefix and
// suffix folds along each axis, bit-identity with the window walk (the region body called per
// element) on random data, the chunked order of long sums (against a plain implementation of it,
// the exact sums and another thread count), and the padding rule that keeps the walk.
#include "program/ops/reduction/window_scan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ndbuf/memory/parallel.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

// JAX's cumulative form along `axis` of `shape`: window = axis length, padding (n - 1, 0), or
// (0, n - 1) when reversed.
WindowConfig cumulative(const Shape& shape, size_t axis, bool reverse = false) {
  WindowConfig w;
  w.window_dimensions.assign(shape.size(), 1);
  w.padding.assign(shape.size(), {0, 0});
  const int64_t n = shape[axis];
  w.window_dimensions[axis] = n;
  w.padding[axis] = reverse ? std::make_pair(int64_t{0}, n - 1) : std::make_pair(n - 1, int64_t{0});
  return w;
}

std::optional<ScanAxis> scan_of(const Shape& shape, const WindowConfig& w) {
  return scan_axis(window_geometry(shape, w, "reduce_window"), shape);
}

TEST(ProgramWindowScan, RecognisesOnlyTheCumulativeShape) {
  const Shape s{4, 6};
  const auto along0 = scan_of(s, cumulative(s, 0));
  ASSERT_TRUE(along0.has_value());
  EXPECT_EQ(along0->axis, 0u);
  EXPECT_FALSE(along0->reverse);
  const auto reversed = scan_of(s, cumulative(s, 1, true));
  ASSERT_TRUE(reversed.has_value());
  EXPECT_EQ(reversed->axis, 1u);
  EXPECT_TRUE(reversed->reverse);
  // A longer window with the matching padding is still a prefix.
  EXPECT_TRUE(scan_of(Shape{5}, {{9}, {}, {}, {}, {{8, 0}}}).has_value());
  // Not scans: a shorter window (a moving sum), a stride, a dilation, padding split both ways,
  // two windowed axes, no window at all.
  EXPECT_FALSE(scan_of(Shape{5}, {{3}, {}, {}, {}, {{2, 0}}}).has_value());
  EXPECT_FALSE(scan_of(Shape{5}, {{5}, {2}, {}, {}, {{4, 0}}}).has_value());
  EXPECT_FALSE(scan_of(Shape{5}, {{5}, {}, {}, {2}, {{8, 0}}}).has_value());
  EXPECT_FALSE(scan_of(Shape{5}, {{5}, {}, {}, {}, {{2, 2}}}).has_value());
  EXPECT_FALSE(scan_of(s, {{4, 6}, {}, {}, {}, {{3, 0}, {5, 0}}}).has_value());
  EXPECT_FALSE(scan_of(s, {{1, 1}, {}, {}, {}, {}}).has_value());
}

TEST(ProgramWindowScan, PrefixAndSuffixFoldsByHand) {
  const Shape s{2, 3};
  const Tensor x = f64(s, {1, 2, 3, 4, 5, 6});
  const auto run = [&](const WindowConfig& w, FastBody body, double init) {
    return values<double>(reduce_window({x}, {f64({}, {init})}, w, nullptr, body)[0]);
  };
  EXPECT_EQ(run(cumulative(s, 1), FastBody::kAdd, 0), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(run(cumulative(s, 0), FastBody::kAdd, 0), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(run(cumulative(s, 1, true), FastBody::kAdd, 0),
            (std::vector<double>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(run(cumulative(s, 1), FastBody::kMultiply, 1),
            (std::vector<double>{1, 2, 6, 4, 20, 120}));
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor y = f64({5}, {3, 1, 4, 1, 5});
  const auto cummax =
      reduce_window({y}, {f64({}, {-inf})}, cumulative({5}, 0), nullptr, FastBody::kMaximum);
  EXPECT_EQ(values<double>(cummax[0]), (std::vector<double>{3, 3, 4, 4, 5}));
  const auto cummin =
      reduce_window({y}, {f64({}, {inf})}, cumulative({5}, 0, true), nullptr, FastBody::kMinimum);
  EXPECT_EQ(values<double>(cummin[0]), (std::vector<double>{1, 1, 1, 1, 5}));
}

TEST(ProgramWindowScan, NaNPropagatesAndIntegersWrap) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto r = values<double>(reduce_window({f64({4}, {1, nan, 2, 3})}, {f64({}, {0})},
                                              cumulative({4}, 0), nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(r[0], 1);
  EXPECT_TRUE(std::isnan(r[1]) && std::isnan(r[2]) && std::isnan(r[3]));
  const int32_t big = std::numeric_limits<int32_t>::max();
  const auto w = values<int32_t>(reduce_window({i32({2}, {big, 1})}, {scalar_i32(0)},
                                               cumulative({2}, 0), nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(w, (std::vector<int32_t>{big, std::numeric_limits<int32_t>::min()}));
}

// The forward scan folds each window in the walk's order, so it must give the walk's bits: the
// walk is forced by a body the kernel does not recognise (kNone, the region called per element).
TEST(ProgramWindowScan, ForwardScanMatchesTheWindowWalkBitForBit) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1);
  const Shape s{3, 37, 5};
  std::vector<float> v(3 * 37 * 5);
  for (float& e : v) e = u(gen);
  const Tensor x = f32(s, v);
  const RegionFn add = binary_region<float>(DType::kF32, [](float a, float b) { return a + b; });
  for (size_t axis = 0; axis < 3; ++axis) {
    const WindowConfig w = cumulative(s, axis);
    const auto scanned = reduce_window({x}, {scalar_f32(0)}, w, nullptr, FastBody::kAdd)[0];
    const auto walked = reduce_window({x}, {scalar_f32(0)}, w, add, FastBody::kNone)[0];
    EXPECT_EQ(values<float>(scanned), values<float>(walked)) << "axis " << axis;
  }
}

// The running maximum / minimum of one line, folded one element at a time as the fast bodies
// define them: a NaN running value stays, a NaN element replaces it, otherwise the element
// replaces it only when strictly beyond it (so the first of equal values, -0 / +0, stays).
template <class T>
std::vector<T> running_extreme(const std::vector<T>& v, int64_t rows, int64_t n, bool maximum,
                               bool reverse, T start) {
  std::vector<T> out(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    T a = start;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t at = r * n + (reverse ? n - 1 - k : k);
      const T x = v[at];
      const bool a_nan = a != a, x_nan = x != x;
      if (!a_nan && (x_nan || (maximum ? a < x : x < a))) a = x;
      out[at] = a;
    }
  }
  return out;
}

template <class T>
std::vector<uint8_t> raw(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(ProgramWindowScan, RunningMaximumAndMinimumOfLinesFollowTheFoldBitForBit) {
  std::mt19937 gen(3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t rows = 4, n = 300;
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<float> f(rows * n);
    std::vector<int32_t> ints(rows * n);
    for (int64_t i = 0; i < rows * n; ++i) {
      const int p = static_cast<int>(gen() % 40);
      // trial 0 without NaN; rising runs so the running value changes often
      f[i] = p == 0 && trial > 0 ? nan
             : p == 1            ? -0.0f
             : p == 2            ? 0.0f
             : p == 3            ? -inf
                                 : static_cast<float>(p % 7) + 0.01f * static_cast<float>(i % 97);
      ints[i] = static_cast<int32_t>(gen() % 11) - 5 + static_cast<int32_t>(i % 50);
    }
    for (bool maximum : {true, false}) {
      for (bool reverse : {false, true}) {
        const FastBody body = maximum ? FastBody::kMaximum : FastBody::kMinimum;
        const float finit = maximum ? -inf : inf;
        const int32_t iinit =
            maximum ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
        const WindowConfig w = cumulative({rows, n}, 1, reverse);
        const auto got = values<float>(
            reduce_window({f32({rows, n}, f)}, {scalar_f32(finit)}, w, nullptr, body)[0]);
        EXPECT_EQ(raw(got), raw(running_extreme(f, rows, n, maximum, reverse, finit)))
            << "f32, maximum " << maximum << ", reverse " << reverse << ", trial " << trial;
        const auto goti = values<int32_t>(
            reduce_window({i32({rows, n}, ints)}, {scalar_i32(iinit)}, w, nullptr, body)[0]);
        EXPECT_EQ(goti, running_extreme(ints, rows, n, maximum, reverse, iinit))
            << "i32, maximum " << maximum << ", reverse " << reverse;
      }
    }
  }
}

TEST(ProgramWindowScan, HalfAccumulatesInFloatAndRoundsEachResult) {
  // 2048 + 1 + 1 in f16 step by step would stay 2048; accumulated in f32 it reaches 2050.
  const auto r = half_values(reduce_window({f16({3}, {2048, 1, 1})}, {f16({}, {0})},
                                           cumulative({3}, 0), nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(r, (std::vector<double>{2048, 2048, 2050}));
}

TEST(ProgramWindowScan, AnInitThatChangesWhenFoldedKeepsTheWalk) {
  // init 1 with add: window i holds (n - 1 - i) padding ones, so cumsum(x) + (n - i).
  const auto r = values<double>(reduce_window({f64({3}, {1, 2, 3})}, {f64({}, {1})},
                                              cumulative({3}, 0), nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(r, (std::vector<double>{4, 5, 7}));
  EXPECT_FALSE(window_scan(f64({3}, {1, 2, 3}), f64({}, {1}), ScanAxis{0, false}, FastBody::kAdd)
                   .has_value());
}

TEST(ProgramWindowScan, LongAxisRunsInLinearTime) {
  const int64_t n = 1 << 20;  // the window walk would visit n * (n + 1) / 2 elements
  std::vector<double> ones(static_cast<size_t>(n), 1.0);
  const auto r = values<double>(reduce_window({f64({n}, ones)}, {f64({}, {0})}, cumulative({n}, 0),
                                              nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(r.front(), 1);
  EXPECT_EQ(r[12345], 12346);
  EXPECT_EQ(r.back(), static_cast<double>(n));
}

// Sums of each line of `v` (rows x n) as window_scan.hpp documents them: lines shorter than
// kLongScan folded one element after another from init; longer ones in chunks of kScanChunk
// (totals, offsets from init, each chunk from its offset), in the scan's direction.
template <class T>
std::vector<T> documented_sums(const std::vector<T>& v, int64_t rows, int64_t n, bool reverse,
                               T init) {
  std::vector<T> out(v.size());
  const int64_t chunk = n >= kLongScan ? kScanChunk : n;
  for (int64_t r = 0; r < rows; ++r) {
    const auto at = [&](int64_t j) {
      return static_cast<size_t>(r * n + (reverse ? n - 1 - j : j));
    };
    T offset = init;
    for (int64_t first = 0; first < n; first += chunk) {
      const int64_t end = std::min(n, first + chunk);
      T running = offset;
      for (int64_t j = first; j < end; ++j) out[at(j)] = running = running + v[at(j)];
      T total = v[at(first)];
      for (int64_t j = first + 1; j < end; ++j) total = total + v[at(j)];
      offset = offset + total;
    }
  }
  return out;
}

TEST(ProgramWindowScan, LongLinesOfSumsFoldInTheDocumentedChunks) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(-1, 3);
  for (const int64_t n : {kLongScan - 1, kLongScan, 3 * kLongScan + 777}) {
    const int64_t rows = 3;
    std::vector<float> v(static_cast<size_t>(rows * n));
    for (float& e : v) e = u(gen);
    for (bool reverse : {false, true}) {
      const auto got = values<float>(reduce_window({f32({rows, n}, v)}, {scalar_f32(0)},
                                                   cumulative({rows, n}, 1, reverse), nullptr,
                                                   FastBody::kAdd)[0]);
      const auto want = documented_sums(v, rows, n, reverse, 0.0f);
      EXPECT_EQ(raw(got), raw(want)) << "n " << n << ", reverse " << reverse;
      // Within rounding of the exact sums: at most (chunk length + chunk count) roundings, each
      // within half an ulp of the running magnitude (below the sum of magnitudes).
      const double bound = (kScanChunk + n / kScanChunk + 2) * std::ldexp(1.0, -24);
      for (int64_t r = 0; r < rows; ++r) {
        double exact = 0, magnitude = 0;
        for (int64_t j = 0; j < n; ++j) {
          const size_t at = static_cast<size_t>(r * n + (reverse ? n - 1 - j : j));
          exact += v[at];
          magnitude += std::fabs(v[at]);
          ASSERT_LE(std::fabs(got[at] - exact), bound * magnitude) << "n " << n << " at " << at;
        }
      }
    }
  }
}

TEST(ProgramWindowScan, LongSumsDoNotDependOnTheThreadCount) {
  const int64_t n = 600017;  // 2.4 MB: enough for the loops to take both threads
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& e : v) e = u(gen);
  const auto sums = [&](int threads) {
    const ThreadBudget budget(threads);
    return values<float>(reduce_window({f32({n}, v)}, {scalar_f32(0)}, cumulative({n}, 0), nullptr,
                                       FastBody::kAdd)[0]);
  };
  const auto one = sums(1);
  EXPECT_EQ(raw(one), raw(sums(2)));
  EXPECT_EQ(raw(one), raw(documented_sums(v, 1, n, false, 0.0f)));
}

TEST(ProgramWindowScan, LongIntegerSumsWrapAsTheFoldDoes) {
  const int64_t rows = 2, n = 3 * kLongScan + 5;
  std::vector<int32_t> v(static_cast<size_t>(rows * n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(2000000000 - 7919 * (i % 613));
  std::vector<int32_t> want(v.size());
  for (int64_t r = 0; r < rows; ++r) {
    uint32_t running = 0;  // two's complement wrapping, one element after another
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = static_cast<size_t>(r * n + j);
      running += static_cast<uint32_t>(v[at]);
      want[at] = static_cast<int32_t>(running);
    }
  }
  const auto got = values<int32_t>(reduce_window(
      {i32({rows, n}, v)}, {scalar_i32(0)}, cumulative({rows, n}, 1), nullptr, FastBody::kAdd)[0]);
  EXPECT_EQ(got, want);
}

// Short lines are folded several at a time, each still one element after another.
TEST(ProgramWindowScan, ManyShortLinesFollowTheFoldBitForBit) {
  std::mt19937 gen(13);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const int64_t rows = 19, n = 300;
  std::vector<double> v(static_cast<size_t>(rows * n));
  for (double& e : v) e = u(gen);
  for (bool reverse : {false, true}) {
    std::vector<double> products(v.size());
    for (int64_t r = 0; r < rows; ++r) {
      double running = 1;
      for (int64_t j = 0; j < n; ++j) {
        const size_t at = static_cast<size_t>(r * n + (reverse ? n - 1 - j : j));
        products[at] = running = running * v[at];
      }
    }
    const WindowConfig w = cumulative({rows, n}, 1, reverse);
    EXPECT_EQ(raw(values<double>(reduce_window({f64({rows, n}, v)}, {f64({}, {1})}, w, nullptr,
                                               FastBody::kMultiply)[0])),
              raw(products))
        << "reverse " << reverse;
    EXPECT_EQ(raw(values<double>(reduce_window({f64({rows, n}, v)}, {f64({}, {0})}, w, nullptr,
                                               FastBody::kAdd)[0])),
              raw(documented_sums(v, rows, n, reverse, 0.0)))
        << "reverse " << reverse;
  }
}

}  // namespace
}  // namespace ndbuf::program
