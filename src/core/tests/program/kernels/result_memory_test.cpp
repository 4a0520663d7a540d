// ResultMemory: the memory a kernel's caller hands it for the result (a scratch pool, memory
// offered once, or fresh allocations), and the element-wise kernels taking it explicitly.
#include "program/kernels/result_memory.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "program/ops/elementwise/elementwise.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

Tensor f32_row_major(const Shape& shape) {
  return Tensor::allocate(DType::kF32, shape, Order::kRowMajor);
}

TEST(ResultMemory, FreshAllocationsByDefault) {
  ResultMemory fresh;
  const Tensor a = fresh.take(DType::kF32, {2, 3});
  const Tensor b = fresh.take(DType::kF32, {2, 3});
  EXPECT_NE(a.storage(), b.storage());
  EXPECT_TRUE(a.is_contiguous(Order::kRowMajor));
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_FALSE(fresh.take_offered(DType::kF32, {2, 3}).has_value());
}

TEST(ResultMemory, OfferedMemoryIsTakenOnce) {
  const Tensor offered = f32_row_major({4});
  ResultMemory memory(offered);
  const Tensor first = memory.take(DType::kF32, {4});
  EXPECT_EQ(first.storage(), offered.storage());
  const Tensor second = memory.take(DType::kF32, {4});
  EXPECT_NE(second.storage(), offered.storage());
}

TEST(ResultMemory, AnyAskWithdrawsTheOffer) {
  // A first allocation of another type does not take the memory, and a later one that would
  // fit no longer finds it: only an op's first allocation may write there.
  const Tensor offered = f32_row_major({4});
  ResultMemory memory(offered);
  EXPECT_FALSE(memory.take_offered(DType::kF64, {4}).has_value());
  EXPECT_FALSE(memory.take_offered(DType::kF32, {4}).has_value());

  ResultMemory other_shape(offered);
  EXPECT_NE(other_shape.take(DType::kF32, {2, 2}).storage(), offered.storage());
  EXPECT_FALSE(other_shape.take_offered(DType::kF32, {4}).has_value());
}

TEST(ResultMemory, ColumnMajorMemoryIsNotWrittenOver) {
  // Kernel results are dense row-major; an R matrix's column-major buffer is left alone.
  const Tensor column_major = Tensor::allocate(DType::kF32, {2, 3}, Order::kColumnMajor);
  ResultMemory memory(column_major);
  EXPECT_FALSE(memory.take_offered(DType::kF32, {2, 3}).has_value());
}

TEST(ResultMemory, ScratchBuffersAreReusedOnceReleased) {
  BlockScratch scratch(64);
  ResultMemory memory(&scratch);
  const void* first = nullptr;
  {
    const Tensor a = memory.take(DType::kF32, {16});
    first = a.data();
    const Tensor b = memory.take(DType::kF32, {16});
    EXPECT_NE(a.data(), b.data());  // both held: two buffers
  }
  EXPECT_EQ(memory.take(DType::kF32, {16}).data(), first);
  // Larger than a scratch buffer: a fresh allocation, not a pool buffer.
  const Tensor big = memory.take(DType::kF32, {17});
  EXPECT_EQ(big.numel(), 17);
}

TEST(ResultMemory, ElementwiseKernelsWriteIntoOfferedMemory) {
  const Tensor x = f32({4}, {1.0f, -2.0f, 3.5f, 0.0f});
  const Tensor y = f32({4}, {0.5f, 0.5f, -1.0f, 2.0f});
  const Tensor offered = f32_row_major({4});
  ResultMemory memory(offered);
  const Tensor sum = binary(BinaryOp::kAdd, x, y, DType::kF32, memory);
  EXPECT_EQ(sum.storage(), offered.storage());
  EXPECT_EQ(values<float>(sum), (std::vector<float>{1.5f, -1.5f, 2.5f, 2.0f}));

  ResultMemory again(sum);  // the operand's own memory: read and written element by element
  const Tensor negated = unary(UnaryOp::kNegate, sum, DType::kF32, again);
  EXPECT_EQ(negated.storage(), offered.storage());
  EXPECT_EQ(values<float>(negated), (std::vector<float>{-1.5f, 1.5f, -2.5f, -2.0f}));
}

TEST(ResultMemory, KernelsWithoutMemoryAllocate) {
  const Tensor x = f32({2}, {1.0f, 4.0f});
  const Tensor r = unary(UnaryOp::kSqrt, x, DType::kF32);
  EXPECT_NE(r.storage(), x.storage());
  EXPECT_EQ(values<float>(r), (std::vector<float>{1.0f, 2.0f}));
}

}  // namespace
}  // namespace ndbuf::program
