// Structural kernels that read one strided view of their input: transpose, slice, reverse,
// broadcast_in_dim, reshape, dynamic_slice.
#include <algorithm>

#include "program/ops/structure/structure.hpp"

namespace ndbuf::program {

Tensor copy_view(const Tensor& x, int64_t offset, const Shape& shape, const Strides& strides) {
  Tensor out = Tensor::allocate(x.dtype(), shape, Order::kRowMajor);
  if (out.numel() == 0) return out;
  const size_t item = itemsize(x.dtype());
  const char* base = static_cast<const char*>(x.data()) + offset * static_cast<int64_t>(item);
  copy_elements(base, strides, out.data(), out.strides(), shape, item);
  return out;
}

void write_window(Tensor& dst, const Tensor& src, const Dims& start, const Dims& steps) {
  if (src.numel() == 0) return;
  const size_t item = itemsize(dst.dtype());
  int64_t offset = 0;
  Strides strides(dst.rank());
  for (size_t k = 0; k < dst.rank(); ++k) {
    offset += start[k] * dst.strides()[k];
    strides[k] = dst.strides()[k] * steps[k];
  }
  char* base = static_cast<char*>(dst.data()) + offset * static_cast<int64_t>(item);
  copy_elements(src.data(), src.strides(), base, strides, src.shape(), item);
}

Tensor transpose(const Tensor& x, const Dims& perm) {
  Shape shape(perm.size());
  Strides strides(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) {
    shape[k] = x.shape()[perm[k]];
    strides[k] = x.strides()[perm[k]];
  }
  return copy_view(x, 0, shape, strides);
}

Tensor slice(const Tensor& x, const Dims& start, const Dims& limit, const Dims& stride) {
  Shape shape(x.rank());
  Strides strides(x.rank());
  int64_t offset = 0;
  for (size_t k = 0; k < x.rank(); ++k) {
    // ceil((limit - start) / stride) without overflow for strides up to INT64_MAX; a stride is
    // followed only between two elements, where stride * x's stride stays inside x.
    shape[k] = limit[k] > start[k] ? (limit[k] - start[k] - 1) / stride[k] + 1 : 0;
    strides[k] = shape[k] > 1 ? x.strides()[k] * stride[k] : x.strides()[k];
    offset += start[k] * x.strides()[k];
  }
  return copy_view(x, offset, shape, strides);
}

Tensor reverse(const Tensor& x, const Dims& dims) {
  Strides strides = x.strides();
  int64_t offset = 0;
  for (int64_t d : dims) {
    if (x.shape()[d] == 0) continue;
    offset += (x.shape()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return copy_view(x, offset, x.shape(), strides);
}

Tensor broadcast_in_dim(const Tensor& x, const Shape& shape, const Dims& dims) {
  Strides strides(shape.size(), 0);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (x.shape()[k] == shape[dims[k]]) strides[dims[k]] = x.strides()[k];
  }
  return copy_view(x, 0, shape, strides);
}

Tensor reshape(const Tensor& x, const Shape& shape) {
  Tensor dense = copy_view(x, 0, x.shape(), x.strides());
  return Tensor::dense(dense.storage(), dense.dtype(), shape, Order::kRowMajor);
}

Tensor dynamic_slice(const Tensor& x, Dims start, const Dims& sizes) {
  Dims limit(x.rank());
  const Dims ones(x.rank(), 1);
  for (size_t k = 0; k < x.rank(); ++k) {
    start[k] = std::clamp<int64_t>(start[k], 0, x.shape()[k] - sizes[k]);
    limit[k] = start[k] + sizes[k];
  }
  return slice(x, start, limit, ones);
}

}  // namespace ndbuf::program
