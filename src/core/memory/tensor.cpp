// Tensor construction (every view checked to lie inside its storage) and axis reversal.
#include "ndbuf/memory/tensor.hpp"

#include <string>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"

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

}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
               int64_t offset)
    : storage_(std::move(storage)),
      dtype_(dtype),
      geometry_(std::make_shared<const Geometry>(Geometry{std::move(shape), std::move(strides)})),
      offset_(offset),
      numel_(checked_numel(geometry_->shape)) {
  check_within_storage(*storage_, dtype_, geometry_->shape, geometry_->strides, offset_, numel_);
}

const Tensor::Geometry Tensor::kNoGeometry{};

Tensor::Tensor(std::shared_ptr<Storage> storage, DType dtype,
               std::shared_ptr<const Geometry> geometry)
    : storage_(std::move(storage)),
      dtype_(dtype),
      geometry_(std::move(geometry)),
      offset_(0),
      numel_(checked_numel(geometry_->shape)) {
  check_within_storage(*storage_, dtype_, geometry_->shape, geometry_->strides, offset_, numel_);
}

Tensor::Tensor(FreshStorage, std::shared_ptr<Storage> storage, DType dtype,
               std::shared_ptr<const Geometry> geometry, int64_t numel) noexcept
    : storage_(std::move(storage)),
      dtype_(dtype),
      geometry_(std::move(geometry)),
      offset_(0),
      numel_(numel) {}

Tensor Tensor::dense(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape,
                     Order order) {
  return Tensor(std::move(storage), dtype, dense_geometry(shape, order));
}

Tensor Tensor::allocate(DType dtype, const Shape& shape, Order order, Device device) {
  const int64_t numel = checked_numel(shape);
  const int64_t nbytes = checked_nbytes(numel, itemsize(dtype));
  return Tensor(FreshStorage{}, allocate_storage(static_cast<size_t>(nbytes), device), dtype,
                dense_geometry(shape, order), numel);
}

Tensor Tensor::allocate(DType dtype, const Shape& shape, Order order) {
  return allocate(dtype, shape, order, current_device());
}

void* Tensor::data() const noexcept {
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize(dtype_));
}

Tensor Tensor::reversed_axes() const {
  Shape shape(this->shape().rbegin(), this->shape().rend());
  Strides strides(this->strides().rbegin(), this->strides().rend());
  return Tensor(storage_, dtype_, std::move(shape), std::move(strides), offset_);
}

}  // namespace ndbuf
