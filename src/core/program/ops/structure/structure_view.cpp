// Structural kernels that read one strided view of their input: transpose, slice, reverse,
// broadcast_in_dim, reshape, dynamic_slice.
#include <algorithm>
#include <optional>

#include "program/kernels/kernel_values.hpp"
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

namespace {

// The strides `shape` has over x's memory when the reshape only adds or drops dims of size 1
// (the others in order, of the same sizes); a size-1 dim gets the stride a row-major layout
// would give it. Empty otherwise.
std::optional<Strides> unit_dim_strides(const Tensor& x, const Shape& shape) {
  Shape sizes;
  Strides kept;
  for (size_t k = 0; k < x.rank(); ++k) {
    if (x.shape()[k] == 1) continue;
    sizes.push_back(x.shape()[k]);
    kept.push_back(x.strides()[k]);
  }
  Strides strides(shape.size());
  int64_t inner = 1;
  size_t next = sizes.size();
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 1) {
      strides[k] = inner;
      continue;
    }
    if (next == 0 || sizes[next - 1] != shape[k]) return std::nullopt;
    strides[k] = kept[--next];
    inner = strides[k] * shape[k];
  }
  if (next != 0) return std::nullopt;
  return strides;
}

}  // namespace

// A view where the memory allows it (a dense row-major operand, or one whose reshape only adds
// or drops unit dims, as JAX's lowering does around slices and reductions), a dense copy
// otherwise. A view shares its operand's storage, so a donated operand it reads is not written
// in place while the view lives.
Tensor reshape(const Tensor& x, const Shape& shape) {
  if (x.is_contiguous(Order::kRowMajor)) {
    return Tensor(x.storage(), x.dtype(), shape, row_major_strides(shape), x.offset());
  }
  if (std::optional<Strides> strides = unit_dim_strides(x, shape)) {
    return Tensor(x.storage(), x.dtype(), shape, *strides, x.offset());
  }
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
