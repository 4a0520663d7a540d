// Element access shared by the reduction and indexing kernels: dense host inputs, 0-d tensors
// for region calls, checked region results, integer indices of any dtype, axis lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// `x` as a dense row-major tensor in host memory (itself when it already is one).
Tensor dense_host(const Tensor& x);

// Row-major element strides of a shape.
Strides row_major_strides(const Shape& shape);

// Steps a row-major multi-index over `shape` (last dim fastest); false after the last index.
inline bool next_index(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t k = shape.size(); k-- > 0;) {
    if (++index[k] < shape[k]) return true;
    index[k] = 0;
  }
  return false;
}

// The stride of `dims` read as one row-major flattened dim, 0 when all have size 1, or -1 when
// they do not collapse (gaps, reordering, broadcast or negative strides).
int64_t group_stride(const Tensor& x, const std::vector<int64_t>& dims);

// The multi-index of row-major position `linear` over `shape`.
std::vector<int64_t> multi_index(int64_t linear, const Shape& shape);

// The element offsets, in a tensor with `strides` over the dims `shape`, of the positions
// first .. first + count - 1 of a row-major walk over `shape` (the result elements a block of
// reduction lanes computes), into `out`.
void walk_offsets(const Shape& shape, const Strides& strides, int64_t first, int64_t count,
                  std::vector<int64_t>& out);

// A fresh 0-d tensor holding a copy of the element at `element`.
Tensor scalar_from(DType dtype, const void* element);

// Throws unless `results` are exactly dtypes.size() 0-d tensors of those dtypes; returns their
// host element addresses.
std::vector<const void*> region_values(const std::vector<Tensor>& results,
                                       const std::vector<DType>& dtypes, const std::string& op);
// The addresses point into `results`, which must outlive them.
std::vector<const void*> region_values(std::vector<Tensor>&& results,
                                       const std::vector<DType>& dtypes,
                                       const std::string& op) = delete;

// The truth value of a comparator region's result (one 0-d pred), checked as region_values().
bool region_truth(const std::vector<Tensor>& results, const std::string& op);

// Element `pos` of an integer array of `dtype` as int64; unsigned values beyond int64 saturate.
int64_t read_index(const void* base, DType dtype, int64_t pos);

// Throws unless `axes` are distinct and in [0, rank); `what` names them in the message.
void check_axes(const std::vector<int64_t>& axes, size_t rank, const std::string& op,
                const std::string& what);

// Throws unless every tensor has the shape of the first; `what` names them in the message.
void check_same_shapes(const std::vector<Tensor>& tensors, const std::string& op,
                       const std::string& what);

// Throws unless `t` is 0-d.
void check_scalar(const Tensor& t, const std::string& op, const std::string& what);

// Throws an InvalidArgument ndbuf::Error "<op>: <message>".
[[noreturn]] void kernel_error(const std::string& op, const std::string& message);

}  // namespace ndbuf::program
