// Shapes and strides. Strides count elements, not bytes, and are never zero for size-1 axes
// (a zero stride would make a dense array look broadcast to other libraries).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ndbuf {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

enum class Order { kRowMajor, kColumnMajor };

// Product of the dims; throws InvalidArgument for a negative dim or a product beyond int64.
int64_t checked_numel(const Shape& shape);
// numel * itemsize, throwing when it overflows int64.
int64_t checked_nbytes(int64_t numel, size_t itemsize);
// *out = a + b (a - b, a * b); false, with *out unspecified, when the exact result does not fit
// int64. The building blocks of size computations that word their own overflow messages.
inline bool checked_add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool checked_sub(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_sub_overflow(a, b, out);
}
inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

Strides contiguous_strides(const Shape& shape, Order order);
// Whether `strides` equal contiguous_strides(shape, order) exactly (axes of length 1 included),
// without making them: the per-run layout checks of small programs.
bool has_contiguous_strides(const Shape& shape, const Strides& strides, Order order);

// True when the strides describe a dense array in that order. Axes of length 1 are ignored,
// and an array with no elements is contiguous in every order.
bool is_contiguous(const Shape& shape, const Strides& strides, Order order);

// "2x3" (pjrt's footer style, "" for 0-d) or "(2, 3)" (error-message style, "()" for 0-d).
// Tuples of more than kMessageDims dims elide the middle ones, so messages stay short.
inline constexpr size_t kMessageDims = 16;
std::string shape_to_string(const Shape& shape, const char* separator = "x");
std::string shape_to_tuple(const Shape& shape);

}  // namespace ndbuf
