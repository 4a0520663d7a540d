// Scatters whose windows span their input dims (segment sums): the fast bodies against a
// naive loop over the updates in order and against the same body as a region, bit for bit,
// with duplicate and out-of-range indices, row- and column-major updates, on both sides of
// the parallel threshold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "program/ops/indexing/scatter.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

template <class T>
struct BodyCase {
  FastBody fast;
  std::function<T(T, T)> f;
  const char* name;
};

template <class T>
std::vector<BodyCase<T>> bodies() {
  return {{FastBody::kAdd, [](T a, T b) { return static_cast<T>(a + b); }, "add"},
          {FastBody::kMultiply, [](T a, T b) { return static_cast<T>(a * b); }, "multiply"},
          {FastBody::kMaximum, [](T a, T b) { return std::max(a, b); }, "maximum"},
          {FastBody::kMinimum, [](T a, T b) { return std::min(a, b); }, "minimum"}};
}

// Ids in [-3, segments + 2]: duplicates everywhere, some outside on either side.
std::vector<int32_t> segment_ids(int64_t rows, int64_t segments, std::mt19937& rng) {
  std::vector<int32_t> ids(rows);
  for (auto& id : ids) id = static_cast<int32_t>(rng() % (segments + 6)) - 3;
  return ids;
}

// Values whose float sums and products depend on their order (no NaN, no zeros).
template <class T>
std::vector<T> update_values(int64_t count, std::mt19937& rng) {
  std::vector<T> v(count);
  for (auto& x : v) {
    const int k = static_cast<int>(rng() % 9) - 4;
    if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>((k == 0 ? 1 : k) * (rng() % 3 == 0 ? 1e7 : 1.0 + (rng() % 1000) / 997.0));
    } else {
      x = static_cast<T>(k < 0 ? -1 : 1);  // products stay in range
    }
  }
  return v;
}

// r[id] = f(r[id], row) for each row in order, ids outside [0, segments) skipped.
template <class T>
std::vector<T> naive_segments(std::vector<T> r, int64_t width, const std::vector<int32_t>& ids,
                              const std::vector<T>& rows, const std::function<T(T, T)>& f) {
  const auto segments = static_cast<int64_t>(r.size()) / width;
  for (size_t q = 0; q < ids.size(); ++q) {
    if (ids[q] < 0 || ids[q] >= segments) continue;
    for (int64_t j = 0; j < width; ++j) {
      T& out = r[ids[q] * width + j];
      out = f(out, rows[q * width + j]);
    }
  }
  return r;
}

template <class T>
std::vector<uint8_t> bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T>
void check_segment_sums(DType dtype, int64_t rows, int64_t width, int64_t segments, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<int32_t> ids = segment_ids(rows, segments, rng);
  const std::vector<T> data = update_values<T>(rows * width, rng);
  const std::vector<T> start = update_values<T>(segments * width, rng);
  std::vector<T> transposed(rows * width);
  for (int64_t q = 0; q < rows; ++q) {
    for (int64_t j = 0; j < width; ++j) transposed[j * rows + q] = data[q * width + j];
  }
  const Tensor input = tensor_of(dtype, {segments, width}, start);
  const Tensor idx = i32({rows, 1}, ids);
  const Tensor up = tensor_of(dtype, {rows, width}, data);
  const Tensor up_t = tensor_of(dtype, {width, rows}, transposed);
  const ScatterDimensions by_row{{1}, {0}, {}, {}, {0}, 1};
  const ScatterDimensions by_column{{0}, {0}, {}, {}, {0}, 1};  // updates [width, rows]
  for (const auto& body : bodies<T>()) {
    const auto want = bytes(naive_segments(start, width, ids, data, body.f));
    const RegionFn region = binary_region<T>(dtype, body.f);
    const std::string what = std::string(body.name) + ", " + std::to_string(rows) + " x " +
                             std::to_string(width) + " into " + std::to_string(segments);
    EXPECT_EQ(bytes(values<T>(scatter({input}, idx, {up}, by_row, nullptr, body.fast)[0])), want)
        << what << ", row-major updates";
    EXPECT_EQ(
        bytes(values<T>(scatter({input}, idx, {column_major(up)}, by_row, nullptr, body.fast)[0])),
        want)
        << what << ", column-major updates";
    EXPECT_EQ(bytes(values<T>(scatter({input}, idx, {up_t}, by_column, nullptr, body.fast)[0])),
              want)
        << what << ", window dim first";
    if (rows * width <= 4096) {
      EXPECT_EQ(bytes(values<T>(scatter({input}, idx, {up}, by_row, region)[0])), want)
          << what << ", region body";
    }
  }
}

TEST(ScatterSpans, SegmentSumsMatchTheOrderedLoopBitForBit) {
  check_segment_sums<float>(DType::kF32, 37, 5, 6, 1);
  check_segment_sums<float>(DType::kF32, 100000, 32, 1000, 2);  // past the parallel threshold
  check_segment_sums<double>(DType::kF64, 50, 3, 4, 3);
  check_segment_sums<double>(DType::kF64, 40000, 17, 300, 4);
  check_segment_sums<int32_t>(DType::kI32, 60, 7, 9, 5);
  check_segment_sums<int64_t>(DType::kI64, 30000, 9, 50, 6);
}

// Windows spanning the last dim of a 3-d input, two inserted dims picked by an index pair
// (pairs outside skipped), updates of a scatter grid 2 x rows.
TEST(ScatterSpans, IndexPairsIntoAThreeDimensionalInput) {
  const int64_t rows = 700, width = 6;
  std::mt19937 rng(8);
  std::vector<int32_t> pairs(2 * rows * 2);
  for (auto& p : pairs) p = static_cast<int32_t>(rng() % 6) - 1;  // -1 and 4 fall outside
  const std::vector<float> data = update_values<float>(2 * rows * width, rng);
  const std::vector<float> start = update_values<float>(4 * 4 * width, rng);
  std::vector<float> want = start;
  for (int64_t q = 0; q < 2 * rows; ++q) {
    const int32_t a = pairs[2 * q], b = pairs[2 * q + 1];
    if (a < 0 || a >= 4 || b < 0 || b >= 4) continue;
    for (int64_t j = 0; j < width; ++j) want[(a * 4 + b) * width + j] += data[q * width + j];
  }
  const ScatterDimensions dims{{2}, {0, 1}, {}, {}, {0, 1}, 2};
  const Tensor r = scatter({f32({4, 4, width}, start)}, i32({2, rows, 2}, pairs),
                           {f32({2, rows, width}, data)}, dims, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(bytes(values<float>(r)), bytes(want));
}

}  // namespace
}  // namespace ndbuf::program
