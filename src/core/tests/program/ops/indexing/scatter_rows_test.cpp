// Row scatters (one scatter position dim, windows that are whole trailing rows: segment sums)
// against a naive loop over the positions in order, bit for bit: widths around the column
// groups of 8, 4, 2 and 1, i32 and i64 indices (i64 values past int32's range), row- and
// column-major updates, runs of equal ids, empty inputs, index pairs, several chunks of
// positions, and a two-dimensional window that keeps the general path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "program/ops/indexing/scatter.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// r[ids[q]] = f(r[ids[q]], row q) for q in order; ids outside [0, segments) are skipped.
template <class T>
std::vector<T> naive_rows(std::vector<T> r, int64_t width, const std::vector<int64_t>& ids,
                          const std::vector<T>& rows, const std::function<T(T, T)>& f) {
  const auto segments = width == 0 ? 0 : static_cast<int64_t>(r.size()) / width;
  for (size_t q = 0; q < ids.size(); ++q) {
    if (ids[q] < 0 || ids[q] >= segments) continue;
    for (int64_t j = 0; j < width; ++j) {
      T& out = r[ids[q] * width + j];
      out = f(out, rows[q * width + j]);
    }
  }
  return r;
}

// Ids in [-2, segments + 1], or sorted runs of equal ids when `sorted`.
std::vector<int64_t> row_ids(int64_t rows, int64_t segments, bool sorted, std::mt19937& rng) {
  std::vector<int64_t> ids(rows);
  for (auto& id : ids) id = static_cast<int64_t>(rng() % (segments + 4)) - 2;
  if (sorted) std::sort(ids.begin(), ids.end());
  return ids;
}

// Floats whose sums and products depend on their order; small integers otherwise.
template <class T>
std::vector<T> row_values(int64_t count, std::mt19937& rng) {
  std::vector<T> v(count);
  for (auto& x : v) {
    const int k = static_cast<int>(rng() % 7) - 3;
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>((k == 0 ? 1 : k) * (rng() % 5 == 0 ? 1e7 : 1.0 + (rng() % 997) / 991.0));
    } else {
      x = static_cast<T>(k < 0 ? -1 : 1);
    }
  }
  return v;
}

Tensor index_tensor(const std::vector<int64_t>& ids, bool wide) {
  const auto rows = static_cast<int64_t>(ids.size());
  if (wide) return i64({rows}, ids);  // index_vector_dim 1: one component per position
  return i32({rows, 1}, std::vector<int32_t>(ids.begin(), ids.end()));
}

struct RowCase {
  DType dtype;
  int64_t rows, width, segments;
  bool sorted;
  uint32_t seed;
};

// Both index dtypes and both update layouts give the naive loop's bits.
template <class T>
void check_rows(const RowCase& c, FastBody fast, const std::function<T(T, T)>& f) {
  std::mt19937 rng(c.seed);
  const std::vector<int64_t> ids = row_ids(c.rows, c.segments, c.sorted, rng);
  const std::vector<T> data = row_values<T>(c.rows * c.width, rng);
  const std::vector<T> start = row_values<T>(c.segments * c.width, rng);
  const auto want = bytes_of(naive_rows(start, c.width, ids, data, f));
  const Tensor input = tensor_of(c.dtype, {c.segments, c.width}, start);
  const Tensor up = tensor_of(c.dtype, {c.rows, c.width}, data);
  const ScatterDimensions dims{{1}, {0}, {}, {}, {0}, 1};
  for (bool wide : {false, true}) {
    for (const Tensor& u : {up, column_major(up)}) {
      const Tensor r = scatter({input}, index_tensor(ids, wide), {u}, dims, nullptr, fast)[0];
      EXPECT_EQ(bytes_of(values<T>(r)), want)
          << c.rows << " x " << c.width << " into " << c.segments << (wide ? ", i64" : ", i32")
          << (u.strides().back() == 1 ? ", row-major" : ", column-major")
          << (c.sorted ? ", sorted" : "");
    }
  }
}

template <class T>
void check_float_bodies(const RowCase& c) {
  check_rows<T>(c, FastBody::kAdd, [](T a, T b) { return a + b; });
  check_rows<T>(c, FastBody::kMultiply, [](T a, T b) { return a * b; });
  check_rows<T>(c, FastBody::kMaximum, [](T a, T b) { return std::max(a, b); });
  check_rows<T>(c, FastBody::kMinimum, [](T a, T b) { return std::min(a, b); });
  check_rows<T>(c, FastBody::kReplace, [](T, T b) { return b; });
}

TEST(ScatterRows, EveryWidthAroundTheColumnGroupsMatchesTheOrderedLoop) {
  for (int64_t width : {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 33}) {
    check_float_bodies<float>({DType::kF32, 300, width, 11, false, static_cast<uint32_t>(width)});
  }
  check_float_bodies<float>({DType::kF32, 500, 13, 7, true, 40});
}

TEST(ScatterRows, DtypesOnBothSidesOfTheParallelThreshold) {
  check_float_bodies<float>({DType::kF32, 100000, 32, 1000, false, 1});
  check_float_bodies<double>({DType::kF64, 40000, 20, 300, false, 2});
  check_float_bodies<double>({DType::kF64, 40000, 20, 300, true, 3});
  const auto add_i32 = [](int32_t a, int32_t b) { return a + b; };
  check_rows<int32_t>({DType::kI32, 70000, 11, 50, false, 4}, FastBody::kAdd, add_i32);
  const auto max_i64 = [](int64_t a, int64_t b) { return std::max(a, b); };
  check_rows<int64_t>({DType::kI64, 900, 6, 20, false, 5}, FastBody::kMaximum, max_i64);
}

// Narrow floats combine in f32 and round back after every update.
TEST(ScatterRows, HalfPrecisionRoundsAfterEveryUpdate) {
  std::mt19937 rng(6);
  const int64_t rows = 3000, width = 9, segments = 13;
  const std::vector<int64_t> ids = row_ids(rows, segments, false, rng);
  std::vector<double> data(rows * width), start(segments * width, 0.0);
  for (auto& x : data) x = (static_cast<int>(rng() % 2001) - 1000) / 64.0;
  std::vector<Half> want;
  for (double s : start) want.push_back(to_half(s));
  for (int64_t q = 0; q < rows; ++q) {
    if (ids[q] < 0 || ids[q] >= segments) continue;
    for (int64_t j = 0; j < width; ++j) {
      Half& out = want[ids[q] * width + j];
      const float sum = static_cast<float>(to_double(out)) +
                        static_cast<float>(to_double(to_half(data[q * width + j])));
      out = to_half(static_cast<double>(sum));
    }
  }
  const ScatterDimensions dims{{1}, {0}, {}, {}, {0}, 1};
  const Tensor r =
      scatter({f16({segments, width}, start)}, index_tensor(ids, false),
              {column_major(f16({rows, width}, data))}, dims, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(bytes_of(values<Half>(r)), bytes_of(want));
}

TEST(ScatterRows, WideIndicesPastInt32AreSkippedNotWrapped) {
  const int64_t big = int64_t{1} << 32;
  const std::vector<int64_t> ids = {
      big + 1, 1 - big, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 1,
      0,       1};
  const std::vector<float> data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
  const ScatterDimensions dims{{1}, {0}, {}, {}, {0}, 1};
  const Tensor r = scatter({f32({2, 2}, {0.5f, 0.25f, 100, 200})}, i64({7}, ids),
                           {f32({7, 2}, data)}, dims, nullptr, FastBody::kAdd)[0];
  // Row 0 gets position 5 (11, 12); row 1 gets positions 4 and 6 (9, 10 and 13, 14).
  EXPECT_EQ(values<float>(r), (std::vector<float>{11.5f, 12.25f, 122, 224}));
}

TEST(ScatterRows, EmptyPositionsOrRowsLeaveTheInput) {
  const ScatterDimensions dims{{1}, {0}, {}, {}, {0}, 1};
  const Tensor none = scatter({f32({2, 3}, {1, 2, 3, 4, 5, 6})}, i32({0, 1}, {}), {f32({0, 3}, {})},
                              dims, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(values<float>(none), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const Tensor narrow = scatter({f32({2, 0}, {})}, i32({3, 1}, {0, 1, 0}), {f32({3, 0}, {})}, dims,
                                nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(narrow.shape(), (Shape{2, 0}));
}

// Index pairs (rows, 2) pick a row of a [4, 5, width] input; a pair naming the window dim of a
// [segments, width] input combines only at start 0, since the window spans that dim.
TEST(ScatterRows, IndexPairsPickARowOrNameTheWindowDim) {
  std::mt19937 rng(7);
  const int64_t rows = 600, width = 10;
  std::vector<int32_t> pairs(2 * rows);
  for (auto& p : pairs) p = static_cast<int32_t>(rng() % 7) - 1;  // -1, 4 and 5 may fall outside
  const std::vector<float> data = row_values<float>(rows * width, rng);
  const std::vector<float> start = row_values<float>(4 * 5 * width, rng);
  std::vector<float> want = start,
                     want_window = std::vector<float>(start.begin(), start.begin() + 4 * width);
  for (int64_t q = 0; q < rows; ++q) {
    const int32_t a = pairs[2 * q], b = pairs[2 * q + 1];
    for (int64_t j = 0; j < width; ++j) {
      if (a >= 0 && a < 4 && b >= 0 && b < 5) want[(a * 5 + b) * width + j] += data[q * width + j];
      if (a >= 0 && a < 4 && b == 0) want_window[a * width + j] += data[q * width + j];
    }
  }
  const Tensor idx = i32({rows, 2}, pairs), up = f32({rows, width}, data);
  const Tensor r = scatter({f32({4, 5, width}, start)}, idx, {column_major(up)},
                           {{1}, {0, 1}, {}, {}, {0, 1}, 1}, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(bytes_of(values<float>(r)), bytes_of(want));
  const Tensor w =
      scatter({f32({4, width}, std::vector<float>(start.begin(), start.begin() + 4 * width))}, idx,
              {up}, {{1}, {0}, {}, {}, {0, 1}, 1}, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(bytes_of(values<float>(w)), bytes_of(want_window));
}

// Wide rows: positions go in several chunks (each a parallel loop of its own).
TEST(ScatterRows, WideRowsInSeveralChunks) {
  const auto add = [](int8_t a, int8_t b) {
    return static_cast<int8_t>(static_cast<uint8_t>(a) + static_cast<uint8_t>(b));
  };
  check_rows<int8_t>({DType::kI8, 5000, 4096, 9, false, 8}, FastBody::kAdd, add);
}

// A window of two dims read from column-major updates has no single element stride: the
// general spanning path, against the ordered loop.
TEST(ScatterRows, TwoDimensionalWindowsOfColumnMajorUpdates) {
  std::mt19937 rng(9);
  const int64_t rows = 2500, a = 3, b = 4, segments = 6;
  const std::vector<int64_t> ids = row_ids(rows, segments, false, rng);
  const std::vector<float> data = row_values<float>(rows * a * b, rng);
  const std::vector<float> start = row_values<float>(segments * a * b, rng);
  const auto want =
      bytes_of(naive_rows<float>(start, a * b, ids, data, [](float x, float y) { return x + y; }));
  const Tensor r = scatter({f32({segments, a, b}, start)}, index_tensor(ids, false),
                           {column_major(f32({rows, a, b}, data))}, {{1, 2}, {0}, {}, {}, {0}, 1},
                           nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(bytes_of(values<float>(r)), want);
}

}  // namespace
}  // namespace ndbuf::program
