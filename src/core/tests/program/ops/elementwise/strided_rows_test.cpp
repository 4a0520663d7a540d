// Element-wise kernels over operands read across their memory order: all column-major (a flat
// loop into column-major staging, then a tiled transpose) or mixed with row-major operands
// (groups of rows walked column by column), with a 0-d operand broadcast. Every element is
// checked against a value computed here from its index.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ndbuf/base/shape.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::values;

// The value of element `flat` (row-major index) of operand `which`.
float element(int64_t flat, int which) {
  return static_cast<float>((flat * (which + 3)) % 101) - 50.0f;
}

// A tensor of `shape` in `order` whose row-major element i is element(i, which).
Tensor filled(const Shape& shape, Order order, int which) {
  Tensor t = Tensor::allocate(DType::kF32, shape, order);
  const Strides strides = t.strides();
  auto* data = static_cast<float*>(t.data());
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    int64_t offset = 0;
    for (size_t axis = 0; axis < shape.size(); ++axis) offset += index[axis] * strides[axis];
    data[offset] = element(flat, which);
    for (size_t axis = shape.size(); axis-- > 0;) {
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
    }
  }
  return t;
}

std::string type_of(const Shape& shape) {
  std::string text = "tensor<";
  for (int64_t extent : shape) text += std::to_string(extent) + "x";
  return text + "f32>";
}

// (x - y) * s with x column-major, y in `y_order` and s 0-d broadcast, each op its own
// kernel.
void check_shape(const Shape& shape, Order y_order) {
  const std::string t = type_of(shape);
  const std::string text = "func.func @main(%x: " + t + ", %y: " + t + ", %s: tensor<f32>) -> " +
                           t + " {\n" + "  %d = stablehlo.subtract %x, %y : " + t + "\n" +
                           "  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> " +
                           t + "\n" + "  %m = stablehlo.multiply %d, %b : " + t +
                           "\n  return %m : " + t + "\n}\n";
  CompileOptions plain;
  plain.fuse_elementwise = false;
  const auto out = execute(
      *compile(text, Device{}, plain),
      {filled(shape, Order::kColumnMajor, 0), filled(shape, y_order, 1), testing::f32({}, {-2})});
  const std::vector<float> got = values<float>(out[0]);
  ASSERT_EQ(static_cast<int64_t>(got.size()), checked_numel(shape));
  int64_t wrong = 0;
  for (int64_t flat = 0; flat < checked_numel(shape); ++flat) {
    const float want = (element(flat, 0) - element(flat, 1)) * -2.0f;
    if (got[static_cast<size_t>(flat)] != want) ++wrong;
  }
  EXPECT_EQ(wrong, 0) << t;
}

TEST(StridedRows, ColumnMajorOperandsOfManyShapes) {
  // Rows not a multiple of the group, one row, one column, rank 3, and large enough for
  // parallel blocks.
  for (const Shape& shape : {Shape{37, 5}, Shape{1, 9}, Shape{40, 1}, Shape{3, 17, 19},
                             Shape{2, 3, 4, 5}, Shape{1000, 300}}) {
    check_shape(shape, Order::kColumnMajor);
    check_shape(shape, Order::kRowMajor);
  }
}

}  // namespace
}  // namespace ndbuf::program
