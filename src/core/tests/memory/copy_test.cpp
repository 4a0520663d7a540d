// Tests of memory-order changes through copy_elements().
#include "ndbuf/memory/copy.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {
namespace {

// The bytes of a dense array of `shape` in `to` order, from bytes in `from` order, computed
// one element at a time from the index formulas.
std::string naive_reorder(const std::string& src, const Shape& shape, size_t item, Order from,
                          Order to) {
  const int64_t n = checked_numel(shape);
  std::string out(src.size(), '\0');
  const Strides fs = contiguous_strides(shape, from);
  const Strides ts = contiguous_strides(shape, to);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e;  // e counts in column-major order
    int64_t a = 0;
    int64_t b = 0;
    for (size_t k = 0; k < shape.size(); ++k) {
      const int64_t i = rest % shape[k];
      rest /= shape[k];
      a += i * fs[k];
      b += i * ts[k];
    }
    std::memcpy(&out[b * item], &src[a * item], item);
  }
  return out;
}

std::string random_bytes(size_t n, std::mt19937_64& rng) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(Reorder, OrdersCoincide) {
  EXPECT_TRUE(orders_coincide({}));
  EXPECT_TRUE(orders_coincide({7}));
  EXPECT_TRUE(orders_coincide({1, 7}));
  EXPECT_TRUE(orders_coincide({7, 1, 1}));
  EXPECT_TRUE(orders_coincide({3, 0, 4}));
  EXPECT_FALSE(orders_coincide({2, 3}));
  EXPECT_FALSE(orders_coincide({1, 2, 1, 3}));
}

TEST(Reorder, MatchesIndexFormulasForEveryItemSize) {
  std::mt19937_64 rng(42);
  const std::vector<Shape> shapes = {
      {},        {5},          {3, 4},    {4, 3},      {1, 6},          {6, 1},      {2, 3, 4},
      {70, 130}, {3, 1, 5, 1}, {2, 0, 3}, {65, 3, 67}, {2, 2, 2, 2, 2}, {129, 1, 33}};
  for (const size_t item : {1, 2, 4, 8, 16}) {
    for (const auto& shape : shapes) {
      const size_t n = static_cast<size_t>(checked_numel(shape)) * item;
      const std::string src = random_bytes(n, rng);
      for (const Order from : {Order::kRowMajor, Order::kColumnMajor}) {
        for (const Order to : {Order::kRowMajor, Order::kColumnMajor}) {
          std::string dst(n, '\0');
          copy_elements(src.data(), contiguous_strides(shape, from), dst.data(),
                        contiguous_strides(shape, to), shape, item);
          EXPECT_EQ(dst, naive_reorder(src, shape, item, from, to))
              << "item " << item << " shape " << shape_to_tuple(shape);
        }
      }
    }
  }
}

TEST(Reorder, TicksAfterEachSlabUpToTheTotal) {
  const Shape shape = {2048, 2049};  // 16 MiB of 4-byte cells: more than one slab
  const size_t n = static_cast<size_t>(checked_numel(shape)) * 4;
  std::string src(n, '\1');
  std::string dst(n, '\0');
  std::vector<int64_t> ticks;
  copy_elements_in_slabs(src.data(), contiguous_strides(shape, Order::kRowMajor), dst.data(),
                         contiguous_strides(shape, Order::kColumnMajor), shape, 4,
                         [&](int64_t done) { ticks.push_back(done); });
  ASSERT_GE(ticks.size(), 2u);
  for (size_t k = 1; k < ticks.size(); ++k) EXPECT_GT(ticks[k], ticks[k - 1]);
  EXPECT_EQ(ticks.back(), static_cast<int64_t>(n));
  EXPECT_EQ(src, dst);
}

TEST(Reorder, TiledCopyHandlesNegativeAndOffsetStrides) {
  // A reversed view: the last element first along both axes of a 3x5 column-major array.
  std::vector<int32_t> data(15);
  for (int k = 0; k < 15; ++k) data[k] = k;
  const Shape shape = {3, 5};
  std::vector<int32_t> out(15, -1);
  copy_elements(data.data() + 14, {-1, -3}, out.data(), {5, 1}, shape, 4);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) EXPECT_EQ(out[i * 5 + j], 14 - (i + 3 * j));
  }
}

}  // namespace
}  // namespace ndbuf
