#include "ndbuf/memory/tensor.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "memory/strided_walk.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/reorder.hpp"

namespace ndbuf {
namespace {

// Whether every element of the view lies in [0, capacity). Each step is checked before it is
// taken, so no product or sum overflows: a stride whose span alone exceeds the storage is
// rejected before it is multiplied out.
bool view_inside(const Shape& shape, const Strides& strides, int64_t offset, int64_t capacity) {
  if (offset < 0 || offset >= capacity) return false;
  int64_t lowest = offset;
  int64_t highest = offset;
  for (size_t k = 0; k < shape.size(); ++k) {
    const int64_t extent = shape[k] - 1;
    if (extent == 0) continue;
    const int64_t limit = capacity / extent;
    if (strides[k] < -limit || strides[k] > limit) return false;
    const int64_t span = strides[k] * extent;
    if (span < 0 ? -span > lowest : span >= capacity - highest) return false;
    (span < 0 ? lowest : highest) += span;
  }
  return true;
}

void check_within_storage(const Storage& storage, DType dtype, const Shape& shape,
                          const Strides& strides, int64_t offset, int64_t numel) {
  if (shape.size() != strides.size()) {
    fail(ErrorKind::kInvalidArgument, "A tensor needs one stride per axis.");
  }
  if (numel == 0) return;
  const auto capacity = static_cast<int64_t>(storage.nbytes() / itemsize(dtype));
  if (!view_inside(shape, strides, offset, capacity)) {
    fail(ErrorKind::kIndex, "A view of shape " + shape_to_tuple(shape) +
                                " reaches outside its storage of " + std::to_string(capacity) +
                                " elements.");
  }
}

template <class Cell>
void copy_row(const char* src, int64_t src_step, char* dst, int64_t dst_step, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + i * dst_step, src + i * src_step, sizeof(Cell));
  }
}

struct Bytes16 {
  char bytes[16];
};

void copy_row_of(size_t itemsize, const char* src, int64_t src_step, char* dst, int64_t dst_step,
                 int64_t count) {
  switch (itemsize) {
    case 1:
      return copy_row<uint8_t>(src, src_step, dst, dst_step, count);
    case 2:
      return copy_row<uint16_t>(src, src_step, dst, dst_step, count);
    case 4:
      return copy_row<uint32_t>(src, src_step, dst, dst_step, count);
    case 8:
      return copy_row<uint64_t>(src, src_step, dst, dst_step, count);
    default:
      return copy_row<Bytes16>(src, src_step, dst, dst_step, count);
  }
}

}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
               int64_t offset)
    : storage_(std::move(storage)),
      dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      numel_(checked_numel(shape_)) {
  check_within_storage(*storage_, dtype_, shape_, strides_, offset_, numel_);
}

Tensor Tensor::dense(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Order order) {
  Strides strides = contiguous_strides(shape, order);
  return Tensor(std::move(storage), dtype, std::move(shape), std::move(strides), 0);
}

Tensor Tensor::allocate(DType dtype, Shape shape, Order order, Device device) {
  const int64_t nbytes = checked_nbytes(checked_numel(shape), itemsize(dtype));
  return dense(allocate_storage(static_cast<size_t>(nbytes), device), dtype, std::move(shape),
               order);
}

void* Tensor::data() const noexcept {
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize(dtype_));
}

Tensor Tensor::reversed_axes() const {
  Shape shape(shape_.rbegin(), shape_.rend());
  Strides strides(strides_.rbegin(), strides_.rend());
  return Tensor(storage_, dtype_, std::move(shape), std::move(strides), offset_);
}

void copy_strided(const void* src, const Strides& src_strides, void* dst,
                  const Strides& dst_strides, const Shape& shape, size_t itemsize) {
  const size_t rank = shape.size();
  const int64_t numel = checked_numel(shape);
  if (numel == 0) return;
  if (rank == 0) {
    std::memcpy(dst, src, itemsize);
    return;
  }
  // Walk the destination in memory order: axes sorted by destination stride, outermost first.
  std::vector<size_t> axes(rank);
  std::iota(axes.begin(), axes.end(), size_t{0});
  std::stable_sort(axes.begin(), axes.end(), [&](size_t a, size_t b) {
    return std::abs(dst_strides[a]) > std::abs(dst_strides[b]);
  });
  const auto item = static_cast<int64_t>(itemsize);
  const size_t inner = axes.back();
  const int64_t rows = numel / shape[inner];
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  // Rows are split into blocks that run in parallel, each walking its own range of rows.
  const std::vector<size_t> outer(axes.begin(), axes.end() - 1);
  const int64_t row_bytes = 2 * shape[inner] * item;
  auto copy_rows = [&](int64_t begin, int64_t end) {
    walk_strided(shape, src_strides, dst_strides, outer, begin, end - begin,
                 [&](int64_t src_pos, int64_t dst_pos) {
                   copy_row_of(itemsize, s + src_pos * item, src_strides[inner] * item,
                               d + dst_pos * item, dst_strides[inner] * item, shape[inner]);
                 });
  };
  for_each_block(rows, row_bytes, copy_rows, shape[inner]);
}

void copy_to_dense(const Tensor& src, void* dst, Order order) {
  if (src.numel() == 0) return;  // `dst` may be null then, even for memcpy of 0 bytes
  if (!is_host(src.device())) {
    if (!src.is_contiguous(order)) return copy_to_dense(to_host(src), dst, order);
    device_api(src.device().platform)
        .copy_device_to_host(src.device().index, dst, src.data(),
                             static_cast<size_t>(src.nbytes()));
    return;
  }
  if (src.is_contiguous(order)) {
    copy_bytes(dst, src.data(), static_cast<size_t>(src.nbytes()));
    return;
  }
  // Tiled where the fastest axes differ (a transpose), parallel for large copies.
  copy_strided_parallel(src.data(), src.strides(), dst, contiguous_strides(src.shape(), order),
                        src.shape(), itemsize(src.dtype()));
}

Tensor make_dense(const Tensor& src, Order order) {
  if (!is_host(src.device())) return make_dense(to_host(src), order);
  if (src.is_contiguous(order) && src.offset() == 0 &&
      static_cast<int64_t>(src.storage()->nbytes()) == src.nbytes()) {
    return src;
  }
  Tensor out = Tensor::allocate(src.dtype(), src.shape(), order, src.device());
  copy_to_dense(src, out.data(), order);
  return out;
}

}  // namespace ndbuf
