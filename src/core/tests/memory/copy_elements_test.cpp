// copy_elements() over each of its strategies and across tile, block, round and slab
// boundaries, checked against a naive loop over every index.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

// One side of a copy: a buffer and where element (0, ..., 0) sits in it.
struct Side {
  std::string bytes;
  int64_t origin;  // in elements
  Strides strides;
};

// The element positions a layout reaches, lowest and highest (relative to its origin).
std::pair<int64_t, int64_t> reach(const Shape& shape, const Strides& strides) {
  int64_t low = 0;
  int64_t high = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t span = strides[k] * (shape[k] - 1);
    (span < 0 ? low : high) += span;
  }
  return {low, high};
}

Side make_side(const Shape& shape, Strides strides, size_t item, std::mt19937_64& rng) {
  const auto [low, high] = reach(shape, strides);
  Side side{std::string(static_cast<size_t>(high - low + 1) * item, '\0'), -low,
            std::move(strides)};
  for (auto& c : side.bytes) c = static_cast<char>(rng());
  return side;
}

// dst with every element of `src` written at its index, one index at a time (the index is
// decoded from a counter, independently of the odometer under test).
std::string naive_copy(const Side& src, const Side& dst, const Shape& shape, size_t item) {
  std::string out = dst.bytes;
  int64_t numel = 1;
  for (const int64_t d : shape) numel *= d;
  for (int64_t e = 0; e < numel; ++e) {
    int64_t rest = e;
    int64_t s = src.origin;
    int64_t d = dst.origin;
    for (size_t k = shape.size(); k-- > 0;) {
      const int64_t i = rest % shape[k];
      rest /= shape[k];
      s += i * src.strides[k];
      d += i * dst.strides[k];
    }
    std::memcpy(&out[static_cast<size_t>(d) * item], &src.bytes[static_cast<size_t>(s) * item],
                item);
  }
  return out;
}

void expect_copy(const Shape& shape, const Strides& ss, const Strides& ds, size_t item) {
  std::mt19937_64 rng(item * 977 + shape.size());
  const Side src = make_side(shape, ss, item, rng);
  Side dst = make_side(shape, ds, item, rng);
  const std::string expected = naive_copy(src, dst, shape, item);
  copy_elements(src.bytes.data() + src.origin * item, ss, dst.bytes.data() + dst.origin * item, ds,
                shape, item);
  EXPECT_TRUE(dst.bytes == expected) << "shape " << shape_to_tuple(shape) << ", item " << item;
}

Strides row_major(const Shape& shape) { return contiguous_strides(shape, Order::kRowMajor); }
Strides column_major(const Shape& shape) { return contiguous_strides(shape, Order::kColumnMajor); }

const size_t kItemSizes[] = {1, 2, 4, 8, 16};

TEST(CopyElements, DenseInOneOrderIsOneMemcpy) {
  for (const size_t item : kItemSizes) {
    for (const Shape& shape : std::vector<Shape>{{}, {1}, {9}, {3, 4}, {2, 1, 5}, {1, 1}}) {
      expect_copy(shape, row_major(shape), row_major(shape), item);
      expect_copy(shape, column_major(shape), column_major(shape), item);
    }
    // Length-1 axes may carry any stride.
    expect_copy({3, 1, 4}, {4, 99, 1}, {4, -7, 1}, item);
  }
}

TEST(CopyElements, StridedRowsWhenTheFastestAxesAgree) {
  for (const size_t item : kItemSizes) {
    expect_copy({4, 6}, {12, 2}, row_major({4, 6}), item);   // every other column
    expect_copy({4, 6}, {-6, -1}, row_major({4, 6}), item);  // both axes reversed
    expect_copy({4, 6}, row_major({4, 6}), {6, -1}, item);   // written reversed
    expect_copy({3, 4, 5}, {40, 10, 2}, {20, 5, 1}, item);
    expect_copy({5, 7}, {0, 1}, row_major({5, 7}), item);  // a broadcast row
  }
}

TEST(CopyElements, TiledTransposeAcrossTileEdges) {
  // Tiles are 32 elements on a side for 1- and 2-byte elements and 16 for wider ones: these
  // shapes end one short of, on, and one past tile edges.
  for (const size_t item : kItemSizes) {
    for (const Shape& shape : std::vector<Shape>{
             {2, 3}, {15, 17}, {16, 16}, {31, 33}, {32, 64}, {5, 17, 33}, {3, 2, 2, 5}}) {
      expect_copy(shape, row_major(shape), column_major(shape), item);
      expect_copy(shape, column_major(shape), row_major(shape), item);
    }
    expect_copy({5, 7}, {1, 0}, column_major({5, 7}), item);  // a broadcast column
    expect_copy({6, 9}, {-1, -6}, {9, 1}, item);              // reversed and transposed
  }
}

TEST(CopyElements, RegisterBlocksAcrossEveryBlockEdge) {
  // 4-byte elements move in 4 x 4 register blocks and 8-byte ones in 2 x 2 blocks (where the
  // source is dense along one axis and the destination along the other); the rest of a tile
  // goes one element at a time. Every remainder of either axis, within one tile and across
  // tile edges, for every element size.
  const int64_t extents[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 17, 20, 35};
  for (const size_t item : kItemSizes) {
    for (const int64_t rows : extents) {
      for (const int64_t cols : extents) {
        const Shape shape{rows, cols};
        expect_copy(shape, row_major(shape), column_major(shape), item);
        expect_copy(shape, column_major(shape), row_major(shape), item);
      }
    }
  }
}

TEST(CopyElements, RegisterBlocksWithPaddedRowsAndOddOrigins) {
  for (const size_t item : kItemSizes) {
    // Padded source columns (stride 23 for 21 rows), dense row-major destination.
    expect_copy({21, 18}, {1, 23}, row_major({21, 18}), item);
    // Dense source, padded destination rows.
    expect_copy({13, 22}, row_major({13, 22}), {1, 19}, item);
    // Three axes, the transposed pair inside: every plane goes through the blocks.
    expect_copy({3, 9, 10}, row_major({3, 9, 10}), {90, 1, 9}, item);
    // Source dense along no axis (every other element): one element at a time.
    expect_copy({9, 11}, {2, 18}, row_major({9, 11}), item);
    // A reversed fast axis: one element at a time, and the same result.
    expect_copy({10, 12}, {-1, 10}, row_major({10, 12}), item);
  }
}

TEST(CopyElements, ParallelBlocksAndInterruptRoundsCoverEveryElement) {
  // Large enough to run in blocks (kBlockElements) on several threads where there are any:
  // a transpose whose slowest destination axis is cut in blocks, and strided rows.
  expect_copy({300, 301}, row_major({300, 301}), column_major({300, 301}), 4);
  expect_copy({7, 129, 130}, column_major({7, 129, 130}), row_major({7, 129, 130}), 8);
  expect_copy({3, 40000}, {80000, 2}, row_major({3, 40000}), 4);
  expect_copy({20000, 3}, {3, -1}, row_major({20000, 3}), 2);
  // An R array of images to row-major and back: the blocks split an axis other than the
  // planes' two (the slowest destination axis is the source's fastest); a matrix whose only
  // axes are the planes' splits the source's fastest one in runs of 32, the last one short.
  expect_copy({37, 9, 11, 70}, column_major({37, 9, 11, 70}), row_major({37, 9, 11, 70}), 4);
  expect_copy({37, 9, 11, 70}, row_major({37, 9, 11, 70}), column_major({37, 9, 11, 70}), 2);
  expect_copy({1000, 777}, column_major({1000, 777}), row_major({1000, 777}), 4);
  // More than kInterruptElements elements: the blocks run in more than one round.
  const Shape big{4097, 2049};
  ASSERT_GT(4097 * 2049, kInterruptElements);
  expect_copy(big, row_major(big), column_major(big), 1);
}

TEST(CopyElements, EmptyArraysCopyNothing) {
  std::vector<char> src(8, 1);
  std::vector<char> dst(8, 7);
  copy_elements(src.data(), {3, 1}, dst.data(), {1, 2}, {2, 0}, 4);
  copy_elements(src.data(), {1}, dst.data(), {1}, {0}, 8);
  copy_elements(nullptr, {1, 1}, nullptr, {1, 1}, {0, 5}, 4);
  EXPECT_EQ(dst, std::vector<char>(8, 7));
}

TEST(CopySlabs, DenseCopiesAreRunsOfSlabBytes) {
  const int64_t n = kSlabBytes / 4 * 2 + 5;  // two whole slabs of f32 and a short one
  std::vector<Slab> slabs;
  for_each_slab({1}, {1}, {n}, 4, [&](const Slab& slab) { slabs.push_back(slab); });
  ASSERT_EQ(slabs.size(), 3u);
  EXPECT_EQ(slabs[0].nbytes, kSlabBytes);
  EXPECT_EQ(slabs[1].src_offset, kSlabBytes / 4);
  EXPECT_EQ(slabs[2].shape, (Shape{5}));
  EXPECT_EQ(slabs[2].bytes_done, n * 4);
  // A (1, n) array is dense in both orders: still runs of bytes.
  slabs.clear();
  for_each_slab(row_major({1, n}), column_major({1, n}), {1, n}, 4,
                [&](const Slab& slab) { slabs.push_back(slab); });
  ASSERT_EQ(slabs.size(), 3u);
  EXPECT_EQ(slabs[2].dst_strides, (Strides{1}));
}

TEST(CopySlabs, TransposesAreCutAlongTheSlowestDestinationAxis) {
  // Column-major (2048, 2049) f32: the slowest destination axis is the second, 8 KiB an index,
  // so a slab holds 2048 indices and the last one index.
  const Shape shape{2048, 2049};
  std::vector<Slab> slabs;
  for_each_slab(row_major(shape), column_major(shape), shape, 4,
                [&](const Slab& slab) { slabs.push_back(slab); });
  ASSERT_EQ(slabs.size(), 2u);
  EXPECT_EQ(slabs[0].shape, (Shape{2048, 2048}));
  EXPECT_EQ(slabs[1].shape, (Shape{2048, 1}));
  EXPECT_EQ(slabs[1].src_offset, 2048);
  EXPECT_EQ(slabs[1].dst_offset, 2048 * 2048);
  EXPECT_EQ(slabs[1].bytes_done, 2048 * 2049 * 4);

  // The whole copy in slabs equals the naive one, and ticks once a slab.
  std::mt19937_64 rng(7);
  const Side src = make_side(shape, row_major(shape), 4, rng);
  Side dst = make_side(shape, column_major(shape), 4, rng);
  const std::string expected = naive_copy(src, dst, shape, 4);
  std::vector<int64_t> ticks;
  copy_elements_in_slabs(src.bytes.data(), src.strides, dst.bytes.data(), dst.strides, shape, 4,
                         [&](int64_t done) { ticks.push_back(done); });
  EXPECT_TRUE(dst.bytes == expected);
  EXPECT_EQ(ticks, (std::vector<int64_t>{2048 * 2048 * 4, 2048 * 2049 * 4}));
}

TEST(CopySlabs, EmptyArraysHaveNoSlabs) {
  int calls = 0;
  for_each_slab({3, 1}, {1, 2}, {2, 0}, 4, [&](const Slab&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace ndbuf
