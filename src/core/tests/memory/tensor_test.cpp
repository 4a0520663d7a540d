// Tests of tensor construction, views and copies.
#include "ndbuf/memory/tensor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

std::shared_ptr<Storage> storage_of(size_t nbytes) { return allocate_host(nbytes); }

template <class F>
void expect_error(F f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// Calls f(index) for every multi-index of `shape`, last axis fastest.
void for_each_index(const Shape& shape, const std::function<void(const std::vector<int64_t>&)>& f) {
  for (int64_t dim : shape) {
    if (dim == 0) return;
  }
  std::vector<int64_t> index(shape.size(), 0);
  while (true) {
    f(index);
    size_t axis = shape.size();
    while (axis > 0) {
      --axis;
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
      if (axis == 0) return;
    }
    if (shape.empty()) return;
  }
}

int64_t linear(const std::vector<int64_t>& index, const Strides& strides) {
  int64_t position = 0;
  for (size_t k = 0; k < index.size(); ++k) position += index[k] * strides[k];
  return position;
}

// Element e gets bytes that differ from every other element's (131 is odd, so e * 131 is a
// bijection mod 256) and within the element from byte to byte.
void fill_pattern(void* data, int64_t count, size_t item) {
  auto* bytes = static_cast<unsigned char*>(data);
  for (int64_t e = 0; e < count; ++e) {
    for (size_t b = 0; b < item; ++b) {
      bytes[e * static_cast<int64_t>(item) + static_cast<int64_t>(b)] =
          static_cast<unsigned char>(e * 131 + static_cast<int64_t>(b) * 17 + 3);
    }
  }
}

// Checks that every element of `dst` (dense in `order`) equals the element of `src` at the same
// multi-index; `src` points at element (0, ..., 0).
void expect_same_elements(const void* src, const Strides& src_strides, const void* dst, Order order,
                          const Shape& shape, size_t item) {
  const Strides dst_strides = contiguous_strides(shape, order);
  int checked = 0;
  for_each_index(shape, [&](const std::vector<int64_t>& index) {
    const auto* a = static_cast<const char*>(src) + linear(index, src_strides) * int64_t(item);
    const auto* b = static_cast<const char*>(dst) + linear(index, dst_strides) * int64_t(item);
    ASSERT_EQ(std::memcmp(a, b, item), 0)
        << "itemsize " << item << ", shape " << shape_to_tuple(shape) << ", element "
        << shape_to_tuple(index);
    ++checked;
  });
  EXPECT_EQ(checked, checked_numel(shape));
}

// ---------------------------------------------------------------------------------------------
// Construction and bounds

TEST(Tensor, DenseTensorProperties) {
  auto storage = storage_of(24);
  const Tensor t(storage, DType::kF32, {2, 3}, {3, 1});
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.strides(), (Strides{3, 1}));
  EXPECT_EQ(t.offset(), 0);
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24);
  EXPECT_EQ(t.data(), storage->data());
  EXPECT_EQ(t.storage().get(), storage.get());
  EXPECT_EQ(t.device(), Device{});
  EXPECT_TRUE(t.is_contiguous(Order::kRowMajor));
  EXPECT_FALSE(t.is_contiguous(Order::kColumnMajor));

  const Tensor view(storage, DType::kF32, {2}, {2}, 3);
  EXPECT_EQ(view.data(), static_cast<char*>(storage->data()) + 12);
  EXPECT_EQ(view.nbytes(), 8);
}

TEST(Tensor, DenseAndAllocate) {
  const Tensor f = Tensor::allocate(DType::kC128, {2, 3, 4}, Order::kColumnMajor);
  EXPECT_EQ(f.strides(), (Strides{1, 2, 6}));
  EXPECT_EQ(f.nbytes(), 24 * 16);
  EXPECT_EQ(f.storage()->nbytes(), 24u * 16u);
  EXPECT_FALSE(f.storage()->read_only());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.data()) % kHostAlignment, 0u);
  const Tensor c = Tensor::dense(f.storage(), DType::kF64, {6, 8}, Order::kRowMajor);
  EXPECT_EQ(c.strides(), (Strides{8, 1}));
  EXPECT_EQ(c.storage().get(), f.storage().get());
  const Tensor scalar = Tensor::allocate(DType::kI8, {}, Order::kRowMajor);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.storage()->nbytes(), 1u);
  const Tensor empty = Tensor::allocate(DType::kF32, {3, 0}, Order::kRowMajor);
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(empty.nbytes(), 0);
  expect_error(
      [] {
        Tensor::allocate(DType::kF32, {2, -1}, Order::kRowMajor);
      },
      ErrorKind::kInvalidArgument, "Shape (2, -1) has a negative dimension -1.");
  expect_error([] { Tensor::allocate(DType::kF64, {int64_t{1} << 61}, Order::kRowMajor); },
               ErrorKind::kInvalidArgument,
               "2305843009213693952 elements of 8 bytes do not fit a 64-bit byte count.");
}

TEST(Tensor, ViewsInsideStorageAreAccepted) {
  auto storage = storage_of(6 * 4);                             // six f32 elements
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {3}, {2}, 0));   // 0, 2, 4
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {3}, {2}, 1));   // 1, 3, 5
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {3}, {-2}, 4));  // 4, 2, 0
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {2, 3}, {-3, 1}, 3));
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {}, {}, 5));
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {4}, {0}, 5));          // a broadcast view
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {0, 3}, {3, 1}, 100));  // no elements at all
  const Tensor t(storage, DType::kF32, {3}, {-2}, 4);
  EXPECT_EQ(t.data(), static_cast<char*>(storage->data()) + 16);
}

TEST(Tensor, ViewsOutsideStorageAreRejected) {
  auto storage = storage_of(6 * 4);
  auto reject = [&](Shape shape, Strides strides, int64_t offset) {
    const std::string message =
        "A view of shape " + shape_to_tuple(shape) + " reaches outside its storage of 6 elements.";
    expect_error([&] { Tensor(storage, DType::kF32, shape, strides, offset); }, ErrorKind::kIndex,
                 message);
  };
  reject({2, 3}, {3, 1}, 1);
  reject({2, 4}, {4, 1}, 0);
  reject({7}, {1}, 0);
  reject({3}, {2}, 2);   // 2, 4, 6
  reject({3}, {-2}, 3);  // 3, 1, -1
  reject({2, 3}, {-3, 1}, 2);
  reject({}, {}, 6);
  reject({}, {}, -1);
  reject({1}, {1}, -1);
  reject({2}, {0}, 6);
}

TEST(Tensor, HugeStridesAndOffsetsAreRejectedWithoutOverflow) {
  auto storage = storage_of(6 * 4);
  auto reject = [&](Shape shape, Strides strides, int64_t offset) {
    const std::string message =
        "A view of shape " + shape_to_tuple(shape) + " reaches outside its storage of 6 elements.";
    expect_error([&] { Tensor(storage, DType::kF32, shape, strides, offset); }, ErrorKind::kIndex,
                 message);
  };
  // stride * (dim - 1) is 2^64 here, which wraps to 0 in 64-bit arithmetic.
  reject({5}, {int64_t{1} << 62}, 0);
  reject({3}, {int64_t{1} << 62}, 0);
  reject({3}, {-(int64_t{1} << 62)}, 5);
  reject({2}, {kMax64}, 1);
  reject({2}, {std::numeric_limits<int64_t>::min()}, 5);
  reject({2, 2}, {kMax64 / 2 + 1, kMax64 / 2 + 1}, 0);
  reject({3}, {1}, kMax64 - 1);
  reject({}, {}, kMax64);
  reject({}, {}, std::numeric_limits<int64_t>::min());
}

TEST(Tensor, CapacityCountsWholeElements) {
  auto storage = storage_of(10);  // two f32 elements and two spare bytes
  EXPECT_NO_THROW(Tensor(storage, DType::kF32, {2}, {1}));
  expect_error([&] { Tensor(storage, DType::kF32, {3}, {1}); }, ErrorKind::kIndex,
               "A view of shape (3) reaches outside its storage of 2 elements.");
  auto wide = storage_of(48);
  EXPECT_NO_THROW(Tensor(wide, DType::kC128, {3}, {1}));
  expect_error(
      [&] {
        Tensor(wide, DType::kC128, {2, 2}, {2, 1});
      },
      ErrorKind::kIndex, "A view of shape (2, 2) reaches outside its storage of 3 elements.");
}

TEST(Tensor, MalformedShapesAreRejected) {
  auto storage = storage_of(24);
  expect_error(
      [&] {
        Tensor(storage, DType::kF32, {2, 3}, {1});
      },
      ErrorKind::kInvalidArgument, "A tensor needs one stride per axis.");
  expect_error([&] { Tensor(storage, DType::kF32, {}, {1}); }, ErrorKind::kInvalidArgument,
               "A tensor needs one stride per axis.");
  expect_error(
      [&] {
        Tensor(storage, DType::kF32, {2, -3}, {1, 1});
      },
      ErrorKind::kInvalidArgument, "Shape (2, -3) has a negative dimension -3.");
}

TEST(Tensor, ReversedAxesSharesStorage) {
  const Tensor f = Tensor::allocate(DType::kI16, {2, 3, 4}, Order::kColumnMajor);
  const long uses = f.storage().use_count();
  const Tensor r = f.reversed_axes();
  EXPECT_EQ(r.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(r.strides(), (Strides{6, 2, 1}));
  EXPECT_EQ(r.storage().get(), f.storage().get());
  EXPECT_EQ(f.storage().use_count(), uses + 1);
  EXPECT_EQ(r.data(), f.data());
  EXPECT_EQ(r.dtype(), DType::kI16);
  EXPECT_TRUE(r.is_contiguous(Order::kRowMajor));
  EXPECT_FALSE(r.is_contiguous(Order::kColumnMajor));
  // Element (i, j, k) of f is element (k, j, i) of r.
  for_each_index(f.shape(), [&](const std::vector<int64_t>& index) {
    const std::vector<int64_t> reversed(index.rbegin(), index.rend());
    EXPECT_EQ(linear(index, f.strides()), linear(reversed, r.strides()));
  });
  // A strided view keeps its offset.
  const Tensor view(f.storage(), DType::kI16, {2, 2}, {1, -6}, 8);
  const Tensor rv = view.reversed_axes();
  EXPECT_EQ(rv.offset(), 8);
  EXPECT_EQ(rv.strides(), (Strides{-6, 1}));
  EXPECT_EQ(rv.data(), view.data());
  const Tensor scalar = Tensor::allocate(DType::kF32, {}, Order::kRowMajor).reversed_axes();
  EXPECT_EQ(scalar.rank(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Copies between layouts

const DType kOnePerItemsize[] = {DType::kU8, DType::kI16, DType::kF32, DType::kF64, DType::kC128};

const std::vector<Shape> kShapesByRank = {
    {}, {5}, {3, 4}, {2, 3, 4}, {2, 3, 1, 5},
};

TEST(CopyStrided, BetweenRowAndColumnMajor) {
  for (DType dtype : kOnePerItemsize) {
    const size_t item = itemsize(dtype);
    for (const Shape& shape : kShapesByRank) {
      const int64_t n = checked_numel(shape);
      std::vector<char> src(n * item), dst(n * item, 0), back(n * item, 0);
      fill_pattern(src.data(), n, item);
      const Strides c = contiguous_strides(shape, Order::kRowMajor);
      const Strides f = contiguous_strides(shape, Order::kColumnMajor);
      copy_elements(src.data(), c, dst.data(), f, shape, item);
      expect_same_elements(src.data(), c, dst.data(), Order::kColumnMajor, shape, item);
      copy_elements(dst.data(), f, back.data(), c, shape, item);
      EXPECT_EQ(back, src) << "itemsize " << item << ", shape " << shape_to_tuple(shape);
      if (shape.size() >= 2) {
        EXPECT_NE(dst, src);  // the layouts really differ
      }
    }
  }
}

TEST(CopyStrided, NegativeStrides) {
  for (DType dtype : kOnePerItemsize) {
    const size_t item = itemsize(dtype);
    const Shape shape{3, 4};
    std::vector<char> src(12 * item), dst(12 * item, 0);
    fill_pattern(src.data(), 12, item);
    // Both axes reversed: element (i, j) is at (2 - i) * 4 + (3 - j) of the row-major source.
    const char* last = src.data() + 11 * item;
    copy_elements(last, {-4, -1}, dst.data(), {4, 1}, shape, item);
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        EXPECT_EQ(std::memcmp(dst.data() + (i * 4 + j) * item,
                              src.data() + ((2 - i) * 4 + (3 - j)) * item, item),
                  0);
      }
    }
    // Writing through a negative destination stride.
    std::vector<char> rev(12 * item, 0);
    copy_elements(src.data(), {4, 1}, rev.data() + 3 * item, {4, -1}, shape, item);
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        EXPECT_EQ(
            std::memcmp(rev.data() + (i * 4 + 3 - j) * item, src.data() + (i * 4 + j) * item, item),
            0);
      }
    }
  }
}

TEST(CopyStrided, EmptyShapesWriteNothing) {
  std::vector<char> src(8, 1), dst(8, 7);
  copy_elements(src.data(), {3, 1}, dst.data(), {1, 2}, {2, 0}, 4);
  copy_elements(src.data(), {1}, dst.data(), {1}, {0}, 8);
  EXPECT_EQ(dst, std::vector<char>(8, 7));
}

TEST(CopyToDense, DenseTensorsInBothOrders) {
  for (DType dtype : kOnePerItemsize) {
    const size_t item = itemsize(dtype);
    for (const Shape& shape : kShapesByRank) {
      for (Order from : {Order::kRowMajor, Order::kColumnMajor}) {
        const Tensor t = Tensor::allocate(dtype, shape, from);
        fill_pattern(t.data(), t.numel(), item);
        for (Order to : {Order::kRowMajor, Order::kColumnMajor}) {
          std::vector<char> out(t.nbytes(), 0);
          copy_to_dense(t, out.data(), to);
          expect_same_elements(t.data(), t.strides(), out.data(), to, shape, item);
          if (to == from) {
            EXPECT_EQ(std::memcmp(out.data(), t.data(), out.size()), 0);
          }
        }
      }
    }
  }
}

TEST(CopyToDense, EmptyTensorsWriteNothing) {
  for (Order order : {Order::kRowMajor, Order::kColumnMajor}) {
    const Tensor empty = Tensor::allocate(DType::kF64, {3, 0}, order);
    std::vector<char> none;  // its data() may be null
    copy_to_dense(empty, none.data(), Order::kRowMajor);
    copy_to_dense(empty, none.data(), Order::kColumnMajor);
    const Tensor view(empty.storage(), DType::kF64, {2, 0}, {-5, 3}, 0);
    copy_to_dense(view, none.data(), order);
    EXPECT_EQ(make_dense(view, order).numel(), 0);
    EXPECT_EQ(make_dense(empty, order).storage().get(), empty.storage().get());
  }
}

// Views that take every other element along each axis, with the first axis reversed.
TEST(CopyToDense, StridedViews) {
  for (DType dtype : kOnePerItemsize) {
    const size_t item = itemsize(dtype);
    for (const Shape& shape : kShapesByRank) {
      Shape parent_shape;
      for (int64_t dim : shape) parent_shape.push_back(2 * dim + 1);
      const Tensor parent = Tensor::allocate(dtype, parent_shape, Order::kRowMajor);
      fill_pattern(parent.data(), parent.numel(), item);
      const Strides& ps = parent.strides();
      Strides strides;
      int64_t offset = 0;
      for (size_t k = 0; k < shape.size(); ++k) {
        strides.push_back(k == 0 ? -2 * ps[k] : 2 * ps[k]);
        offset += k == 0 ? (2 * shape[k] - 1) * ps[k] : ps[k];  // start at 2 * dim - 1 or 1
      }
      const Tensor view(parent.storage(), dtype, shape, strides, offset);
      for (Order to : {Order::kRowMajor, Order::kColumnMajor}) {
        std::vector<char> out(view.nbytes(), 0);
        copy_to_dense(view, out.data(), to);
        expect_same_elements(view.data(), view.strides(), out.data(), to, shape, item);
      }
    }
  }
}

TEST(CopyToDense, SpotValuesOfATransposedInt32Matrix) {
  // Row-major 2x3 [[0, 1, 2], [10, 11, 12]] copied to column-major: 0, 10, 1, 11, 2, 12.
  const Tensor t = Tensor::allocate(DType::kI32, {2, 3}, Order::kRowMajor);
  const int32_t values[] = {0, 1, 2, 10, 11, 12};
  std::memcpy(t.data(), values, sizeof values);
  int32_t out[6] = {};
  copy_to_dense(t, out, Order::kColumnMajor);
  EXPECT_EQ(std::vector<int32_t>(out, out + 6), (std::vector<int32_t>{0, 10, 1, 11, 2, 12}));
  // Its reversed-axes face is a 3x2 row-major view of the same memory read column by column.
  copy_to_dense(t.reversed_axes(), out, Order::kRowMajor);
  EXPECT_EQ(std::vector<int32_t>(out, out + 6), (std::vector<int32_t>{0, 10, 1, 11, 2, 12}));
}

// ---------------------------------------------------------------------------------------------
// make_dense

TEST(MakeDense, AlreadyDenseReturnsTheSameStorage) {
  const Tensor c = Tensor::allocate(DType::kF64, {3, 4}, Order::kRowMajor);
  const Tensor same = make_dense(c, Order::kRowMajor);
  EXPECT_EQ(same.storage().get(), c.storage().get());
  EXPECT_EQ(same.data(), c.data());
  EXPECT_EQ(same.strides(), c.strides());
  const Tensor v = Tensor::allocate(DType::kU8, {7}, Order::kColumnMajor);
  EXPECT_EQ(make_dense(v, Order::kRowMajor).storage().get(), v.storage().get());
  EXPECT_EQ(make_dense(v, Order::kColumnMajor).storage().get(), v.storage().get());
  const Tensor s = Tensor::allocate(DType::kC64, {}, Order::kRowMajor);
  EXPECT_EQ(make_dense(s, Order::kColumnMajor).storage().get(), s.storage().get());
}

TEST(MakeDense, OtherLayoutsAreCopied) {
  const Tensor c = Tensor::allocate(DType::kI16, {3, 4}, Order::kRowMajor);
  fill_pattern(c.data(), c.numel(), 2);
  const Tensor f = make_dense(c, Order::kColumnMajor);
  EXPECT_NE(f.storage().get(), c.storage().get());
  EXPECT_EQ(f.shape(), c.shape());
  EXPECT_EQ(f.dtype(), DType::kI16);
  EXPECT_EQ(f.offset(), 0);
  EXPECT_TRUE(f.is_contiguous(Order::kColumnMajor));
  EXPECT_EQ(f.storage()->nbytes(), 24u);
  expect_same_elements(c.data(), c.strides(), f.data(), Order::kColumnMajor, c.shape(), 2);

  // A dense window that starts past the beginning of its storage.
  const Tensor window(c.storage(), DType::kI16, {2, 4}, {4, 1}, 4);
  const Tensor w = make_dense(window, Order::kRowMajor);
  EXPECT_NE(w.storage().get(), c.storage().get());
  EXPECT_EQ(w.offset(), 0);
  EXPECT_EQ(std::memcmp(w.data(), static_cast<char*>(c.data()) + 8, 16), 0);

  // A reversed view.
  const Tensor reversed(c.storage(), DType::kI16, {3, 4}, {-4, 1}, 8);
  const Tensor r = make_dense(reversed, Order::kRowMajor);
  EXPECT_NE(r.storage().get(), c.storage().get());
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(std::memcmp(static_cast<char*>(r.data()) + i * 8,
                          static_cast<char*>(c.data()) + (2 - i) * 8, 8),
              0);
  }
}

// Strides of a dense tensor, counted by hand: in row-major order the last axis is 1 and each
// axis before it the product of the extents after it; column-major the mirror image.
Strides hand_strides(const Shape& shape, Order order) {
  Strides strides(shape.size(), 1);
  if (order == Order::kRowMajor) {
    for (size_t axis = shape.size(); axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  } else {
    for (size_t axis = 1; axis < shape.size(); ++axis) {
      strides[axis] = strides[axis - 1] * shape[axis - 1];
    }
  }
  return strides;
}

// Dense geometries come from a small cache of recent shapes: however many shapes pass
// through it (far more than it holds, both orders, ranks 0 to 10), every tensor keeps the shape
// and strides it was made with, including those made before their slot was reused.
TEST(TensorTest, DenseTensorsKeepTheirGeometryThroughTheSharedCache) {
  std::vector<Tensor> made;
  std::vector<std::pair<Shape, Order>> expected;
  for (int64_t k = 0; k < 400; ++k) {
    Shape shape;
    for (int64_t axis = 0; axis < k % 11; ++axis) shape.push_back(1 + (k * 7 + axis * 3) % 5);
    const Order order = k % 2 == 0 ? Order::kRowMajor : Order::kColumnMajor;
    made.push_back(Tensor::allocate(DType::kF32, shape, order));
    expected.emplace_back(shape, order);
  }
  for (size_t k = 0; k < made.size(); ++k) {
    EXPECT_EQ(made[k].shape(), expected[k].first) << k;
    EXPECT_EQ(made[k].strides(), hand_strides(expected[k].first, expected[k].second)) << k;
    EXPECT_EQ(made[k].offset(), 0);
  }
}

// The same shape in the two orders never shares strides.
TEST(TensorTest, DenseTensorsOfOneShapeInTwoOrders) {
  const Shape shape{2, 3, 4};
  const Tensor rows = Tensor::allocate(DType::kF64, shape, Order::kRowMajor);
  const Tensor columns = Tensor::allocate(DType::kF64, shape, Order::kColumnMajor);
  const Tensor rows_again = Tensor::dense(allocate_host(192), DType::kF64, shape, Order::kRowMajor);
  EXPECT_EQ(rows.strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(columns.strides(), (Strides{1, 2, 6}));
  EXPECT_EQ(rows_again.strides(), (Strides{12, 4, 1}));
}

// Threads making dense tensors of overlapping shapes at once each get their own shape.
TEST(TensorTest, DenseGeometriesFromManyThreads) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int64_t k = 0; k < 2000; ++k) {
        const Shape shape{1 + (k + t) % 9, 1 + k % 4};
        const Order order = (k + t) % 3 == 0 ? Order::kColumnMajor : Order::kRowMajor;
        const Tensor x = Tensor::allocate(DType::kU8, shape, order);
        if (x.shape() != shape || x.strides() != hand_strides(shape, order)) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ndbuf
