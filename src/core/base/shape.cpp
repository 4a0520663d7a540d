// Shape arithmetic: overflow-checked element counts, strides and contiguity tests.
#include "ndbuf/base/shape.hpp"

#include <limits>

#include "ndbuf/base/error.hpp"

namespace ndbuf {

int64_t checked_numel(const Shape& shape) {
  int64_t numel = 1;
  bool overflow = false;
  for (int64_t dim : shape) {
    if (dim < 0) {
      fail(ErrorKind::kInvalidArgument, "Shape " + shape_to_tuple(shape) +
                                            " has a negative dimension " + std::to_string(dim) +
                                            ".");
    }
  }
  // __builtin_mul_overflow, not a division per dim: tensors are made in every op of a loop.
  for (int64_t dim : shape) {
    if (dim == 0) return 0;  // an empty shape is valid whatever its other dims are
    if (!overflow && __builtin_mul_overflow(numel, dim, &numel)) overflow = true;
  }
  if (overflow) {
    fail(ErrorKind::kInvalidArgument,
         "Shape " + shape_to_tuple(shape) + " has more elements than a 64-bit count can hold.");
  }
  return numel;
}

int64_t checked_nbytes(int64_t numel, size_t itemsize) {
  const auto size = static_cast<int64_t>(itemsize);
  if (numel > std::numeric_limits<int64_t>::max() / size) {
    fail(ErrorKind::kInvalidArgument, std::to_string(numel) + " elements of " +
                                          std::to_string(itemsize) +
                                          " bytes do not fit a 64-bit byte count.");
  }
  return numel * size;
}

namespace {

// Calls visit(axis, stride) for the contiguous strides of `shape` in `order`.
template <class Visit>
void walk_contiguous_strides(const Shape& shape, Order order, Visit visit) {
  const size_t rank = shape.size();
  int64_t step = 1;
  for (size_t k = 0; k < rank; ++k) {
    const size_t axis = order == Order::kColumnMajor ? k : rank - 1 - k;
    if (!visit(axis, step)) return;
    // Only an empty shape (a zero dim beside huge ones) can overflow here; its strides are
    // never followed, so the product stops growing instead of overflowing.
    const int64_t dim = shape[axis] > 0 ? shape[axis] : 1;
    if (step <= std::numeric_limits<int64_t>::max() / dim) step *= dim;
  }
}

}  // namespace

Strides contiguous_strides(const Shape& shape, Order order) {
  Strides strides(shape.size());
  walk_contiguous_strides(shape, order, [&](size_t axis, int64_t step) {
    strides[axis] = step;
    return true;
  });
  return strides;
}

bool has_contiguous_strides(const Shape& shape, const Strides& strides, Order order) {
  if (strides.size() != shape.size()) return false;
  bool equal = true;
  walk_contiguous_strides(shape, order, [&](size_t axis, int64_t step) {
    equal = strides[axis] == step;
    return equal;
  });
  return equal;
}

bool is_contiguous(const Shape& shape, const Strides& strides, Order order) {
  const size_t rank = shape.size();
  int64_t expected = 1;
  for (size_t k = 0; k < rank; ++k) {
    if (shape[k] == 0) return true;
  }
  for (size_t k = 0; k < rank; ++k) {
    const size_t axis = order == Order::kColumnMajor ? k : rank - 1 - k;
    if (shape[axis] == 1) continue;
    if (strides[axis] != expected) return false;
    expected *= shape[axis];
  }
  return true;
}

std::string shape_to_string(const Shape& shape, const char* separator) {
  std::string out;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k > 0) out += separator;
    out += std::to_string(shape[k]);
  }
  return out;
}

std::string shape_to_tuple(const Shape& shape) {
  if (shape.size() <= kMessageDims) return "(" + shape_to_string(shape, ", ") + ")";
  // A message stays short whatever the rank: the first dims, how many are left out, the last.
  const Shape head(shape.begin(), shape.begin() + kMessageDims - 1);
  return "(" + shape_to_string(head, ", ") + ", ... " +
         std::to_string(shape.size() - kMessageDims) + " more ..., " +
         std::to_string(shape.back()) + ")";
}

}  // namespace ndbuf
