// select_and_scatter with a recognised select comparison (lanes and slabs) against the window
// walk with the same comparison written here as a region: the same picks, so the same result
// bits, for f32 (IEEE and total order, NaNs, signed zeros and many ties), f64, i32 and bf16,
// over pooling windows of NHWC images (lanes under and over one chunk of 256, and in whole
// groups of eight, which f32 picks in registers), NCHW images (one lane), windows along the
// first dim (one slab), strides, negative padding and windows of padding only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ndbuf/base/half.hpp"
#include "program/ops/reduction/select_and_scatter.hpp"
#include "program/ops/reduction/window_geometry.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;
using P = std::pair<int64_t, int64_t>;

struct Case {
  Shape shape;
  WindowConfig window;
};

std::vector<Case> cases() {
  return {
      {{3, 9, 10, 5}, {{1, 3, 3, 1}, {}, {}, {}, {P{0, 0}, P{1, 1}, P{1, 1}, P{0, 0}}}},
      {{2, 7, 9, 300}, {{1, 2, 2, 1}, {1, 2, 2, 1}, {}, {}, {}}},
      {{4, 3, 11, 13}, {{1, 1, 3, 4}, {1, 1, 2, 3}, {}, {}, {P{0, 0}, P{0, 0}, P{1, 2}, P{0, 2}}}},
      {{9, 6}, {{3, 1}, {2, 1}, {}, {}, {P{2, 1}, P{0, 0}}}},
      {{5, 4, 6}, {{1, 2, 1}, {}, {}, {}, {P{0, 0}, P{3, 3}, P{0, 0}}}},
      {{2, 10}, {{1, 3}, {}, {}, {}, {P{0, 0}, P{-2, 1}}}},
      {{3, 4}, {{1, 1}, {}, {}, {}, {}}},
      {{}, {{}, {}, {}, {}, {}}},                                         // a scalar picks itself
      {{2, 0, 3}, {{1, 2, 1}, {}, {}, {}, {P{0, 0}, P{1, 1}, P{0, 0}}}},  // empty: padding only
      // Lanes in whole groups of eight, which f32 picks in registers (select_scatter_f32.hpp):
      // a 3 x 3 SAME pool (the windows inside a row share offsets), 32 + 8 lanes with strides,
      // one windowed dim, and windows of padding only.
      {{3, 9, 10, 16}, {{1, 3, 3, 1}, {}, {}, {}, {P{0, 0}, P{1, 1}, P{1, 1}, P{0, 0}}}},
      {{2, 7, 9, 40}, {{1, 3, 3, 1}, {1, 2, 2, 1}, {}, {}, {P{0, 0}, P{1, 1}, P{0, 2}, P{0, 0}}}},
      {{2, 11, 8}, {{1, 4, 1}, {}, {}, {}, {P{0, 0}, P{2, 1}, P{0, 0}}}},
      {{5, 4, 8}, {{1, 2, 1}, {}, {}, {}, {P{0, 0}, P{3, 3}, P{0, 0}}}},
  };
}

// The comparisons as StableHLO's compare defines them: IEEE (false with a NaN), or the total
// order of the bit patterns (negative ones with their magnitude bits flipped).
int32_t total_key(float v) {
  int32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits < 0 ? bits ^ 0x7fffffff : bits;
}

template <class K>
bool holds(ComparatorOrder direction, K a, K b) {
  switch (direction) {
    case ComparatorOrder::kGreaterEqual:
      return a >= b;
    case ComparatorOrder::kGreaterThan:
      return a > b;
    case ComparatorOrder::kLessEqual:
      return a <= b;
    default:
      return a < b;
  }
}

template <class T>
RegionFn select_region(FastComparator c) {
  return comparator_region<T>([c](T a, T b) {
    if constexpr (std::is_same_v<T, float>) {
      if (c.total_order) return holds(c.direction, total_key(a), total_key(b));
    }
    if constexpr (std::is_same_v<T, BFloat16>) {
      return holds(c.direction, to_double(a), to_double(b));
    } else {
      return holds(c.direction, a, b);
    }
  });
}

// Values with many ties (a few distinct magnitudes), signed zeros and, for floats, NaNs.
std::vector<double> random_values(std::mt19937& gen, int64_t n, bool floats) {
  std::uniform_int_distribution<int> pick(-4, 4);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    x = pick(gen);
    if (floats && gen() % 7 == 0) x = gen() % 2 ? 0.0 : -0.0;
    if (floats && gen() % 31 == 0) x = gen() % 2 ? NAN : -NAN;
  }
  return v;
}

// Source values of many magnitudes, so that float sums into one position depend on their order.
std::vector<double> random_sources(std::mt19937& gen, int64_t n) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = std::ldexp(u(gen), static_cast<int>(gen() % 20));
  return v;
}

template <class T>
Tensor tensor_from(DType dtype, const Shape& shape, const std::vector<double>& v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return bf16(shape, v);
  } else {
    return tensor_of(dtype, shape, std::vector<T>(v.begin(), v.end()));
  }
}

const ComparatorOrder kDirections[] = {ComparatorOrder::kGreaterEqual,
                                       ComparatorOrder::kGreaterThan, ComparatorOrder::kLessEqual,
                                       ComparatorOrder::kLessThan};

// The recognised select against its region on the walk, both scattering with a recognised add
// in window order: equal bytes when the picks are equal.
template <class T>
void expect_same_as_walk(DType dtype, const Case& c, FastComparator fast, std::mt19937& gen) {
  const Shape windows = window_geometry(c.shape, c.window, "select_and_scatter").result_shape;
  const bool floats = dtype != DType::kI32;
  const Tensor operand =
      tensor_from<T>(dtype, c.shape, random_values(gen, checked_numel(c.shape), floats));
  const Tensor source = tensor_from<T>(dtype, windows, random_sources(gen, checked_numel(windows)));
  // A start of +0 is filled by memset, any other one element by element.
  for (double start : {0.5, 0.0}) {
    const Tensor init = tensor_from<T>(dtype, {}, {start});
    const Tensor walked = select_and_scatter(operand, source, init, c.window,
                                             select_region<T>(fast), nullptr, {}, FastBody::kAdd);
    const Tensor laned =
        select_and_scatter(operand, source, init, c.window, nullptr, nullptr, fast, FastBody::kAdd);
    ASSERT_EQ(laned.nbytes(), walked.nbytes());
    EXPECT_EQ(std::memcmp(laned.data(), walked.data(), static_cast<size_t>(laned.nbytes())), 0)
        << "start " << start;
  }
}

template <class T>
void sweep(DType dtype, bool total_order) {
  std::mt19937 gen(53);
  for (const Case& c : cases()) {
    for (ComparatorOrder direction : kDirections) {
      SCOPED_TRACE(shape_to_tuple(c.shape) + " direction " +
                   std::to_string(static_cast<int>(direction)));
      expect_same_as_walk<T>(dtype, c, {direction, total_order}, gen);
    }
  }
}

TEST(ProgramSelectAndScatterLanes, F32) { sweep<float>(DType::kF32, false); }
TEST(ProgramSelectAndScatterLanes, F32TotalOrder) { sweep<float>(DType::kF32, true); }
TEST(ProgramSelectAndScatterLanes, F64) { sweep<double>(DType::kF64, false); }
TEST(ProgramSelectAndScatterLanes, I32) { sweep<int32_t>(DType::kI32, false); }
TEST(ProgramSelectAndScatterLanes, BF16) { sweep<BFloat16>(DType::kBF16, false); }

// Images large enough that slabs (images) pick and scatter on several threads.
TEST(ProgramSelectAndScatterLanes, SlabsInParallelAsTheWalk) {
  std::mt19937 gen(59);
  const Case c{{4, 24, 24, 32}, {{1, 3, 3, 1}, {}, {}, {}, {P{0, 0}, P{1, 1}, P{1, 1}, P{0, 0}}}};
  expect_same_as_walk<float>(DType::kF32, c, {ComparatorOrder::kGreaterEqual, false}, gen);
}

}  // namespace
}  // namespace ndbuf::program
