// Tensor = storage + element offset + shape + strides (in elements) + dtype. A PJRTBuffer is a
// tensor with R's dims in whatever layout it was made in: dense column-major when made from R
// (often aliasing the R vector), a row-major view of the mapped file when loaded from an
// aligned safetensors entry, dense row-major when a program returned it. Readers produce R's
// column-major order as they read (copy_to_dense() in transfer.hpp). An HArray is a (possibly
// strided) view of host memory with the axes reversed. One engine, two faces.
#pragma once

#include <memory>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/storage.hpp"

namespace ndbuf {

class Tensor {
 public:
  // Validates that every addressable element lies inside the storage.
  Tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
         int64_t offset = 0);

  // A dense tensor over `storage` in the given order.
  // Its shape and strides are shared with other dense tensors of that shape and order
  // (dense_geometry.cpp).
  static Tensor dense(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape,
                      Order order);
  // Fresh, uninitialised memory on `device` (host memory for CPU devices), laid out densely;
  // without a device, on the calling thread's current_device() (cpu:0 outside a DeviceScope).
  static Tensor allocate(DType dtype, const Shape& shape, Order order, Device device);
  static Tensor allocate(DType dtype, const Shape& shape, Order order);

  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return geometry().shape; }
  const Strides& strides() const noexcept { return geometry().strides; }
  int64_t offset() const noexcept { return offset_; }
  size_t rank() const noexcept { return shape().size(); }
  int64_t numel() const noexcept { return numel_; }
  int64_t nbytes() const noexcept { return numel_ * static_cast<int64_t>(itemsize(dtype_)); }
  const std::shared_ptr<Storage>& storage() const noexcept { return storage_; }
  const Device& device() const noexcept { return storage_->device(); }

  // Address of the element at index (0, ..., 0). On a device that is not the host (is_host())
  // this is a device address, which only that platform's DeviceApi may use: read values
  // through to_host(), copy_to_dense() or make_dense() (transfer.hpp).
  void* data() const noexcept;
  bool is_contiguous(Order order) const { return is_contiguous_(shape(), strides(), order); }

  // The same memory with axes in reverse order (R dims <-> row-major axes).
  Tensor reversed_axes() const;

 private:
  static bool is_contiguous_(const Shape& s, const Strides& t, Order o) {
    return ::ndbuf::is_contiguous(s, t, o);
  }

  // Shape and strides are shared by a tensor's copies, which the interpreter makes per op
  // read (a copy then costs a reference count, not two allocations). Never changed once made.
  struct Geometry {
    Shape shape;
    Strides strides;
  };
  const Geometry& geometry() const noexcept { return geometry_ ? *geometry_ : kNoGeometry; }
  // The shared geometry of dense tensors of `shape` in `order`, from a small cache of recent
  // ones: a program's results are made per run, and a fresh geometry (a shared block, a shape
  // and strides) was three allocations per result.
  static std::shared_ptr<const Geometry> dense_geometry(const Shape& shape, Order order);
  friend struct DenseGeometryCache;
  Tensor(std::shared_ptr<Storage> storage, DType dtype, std::shared_ptr<const Geometry> geometry);
  // A dense tensor over storage just made for its `numel` elements: nothing to check (every op's
  // result is made this way). The tag keeps braced arguments of the public constructor from
  // choosing this one.
  struct FreshStorage {};
  Tensor(FreshStorage, std::shared_ptr<Storage> storage, DType dtype,
         std::shared_ptr<const Geometry> geometry, int64_t numel) noexcept;
  static const Geometry kNoGeometry;  // a moved-from tensor's

  std::shared_ptr<Storage> storage_;
  DType dtype_;
  std::shared_ptr<const Geometry> geometry_;
  int64_t offset_;
  int64_t numel_;
};

}  // namespace ndbuf
