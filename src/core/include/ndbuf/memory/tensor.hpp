// Tensor = storage + element offset + shape + strides (in elements) + dtype. A PJRTBuffer is
// a dense column-major tensor with R's dims; an HArray is a (possibly strided) view of the
// same memory with the axes reversed. One engine, two faces.
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
  static Tensor dense(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Order order);
  // Fresh, uninitialised memory on `device` (host memory for CPU devices), laid out densely.
  static Tensor allocate(DType dtype, Shape shape, Order order, Device device = Device{});

  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  const Strides& strides() const noexcept { return strides_; }
  int64_t offset() const noexcept { return offset_; }
  size_t rank() const noexcept { return shape_.size(); }
  int64_t numel() const noexcept { return numel_; }
  int64_t nbytes() const noexcept { return numel_ * static_cast<int64_t>(itemsize(dtype_)); }
  const std::shared_ptr<Storage>& storage() const noexcept { return storage_; }
  const Device& device() const noexcept { return storage_->device(); }

  // Address of the element at index (0, ..., 0). On a device that is not the host (is_host())
  // this is a device address, which only that platform's DeviceApi may use: read values
  // through to_host(), copy_to_dense() or make_dense().
  void* data() const noexcept;
  bool is_contiguous(Order order) const { return is_contiguous_(shape_, strides_, order); }

  // The same memory with axes in reverse order (R dims <-> row-major axes).
  Tensor reversed_axes() const;

 private:
  static bool is_contiguous_(const Shape& s, const Strides& t, Order o) {
    return ::ndbuf::is_contiguous(s, t, o);
  }

  std::shared_ptr<Storage> storage_;
  DType dtype_;
  Shape shape_;
  Strides strides_;
  int64_t offset_;
  int64_t numel_;
};

// Writes the elements of `src` densely, in `order`, to host memory `dst` (numel * itemsize
// bytes). `src` may live on any device.
void copy_to_dense(const Tensor& src, void* dst, Order order);
// A dense tensor in `order` in host memory: `src` itself when it already is one on the host,
// else a copy (on the host device cpu:0 when `src` lives on another platform).
Tensor make_dense(const Tensor& src, Order order);

// The same view (shape, strides, dtype) over host memory: `src` itself on a CPU device, else a
// copy of the device bytes the view spans. Everything that reads values calls this first.
Tensor to_host(const Tensor& src);

// A fresh dense copy of `src` in `order` on `device`, between any two devices: host to device
// is one copy from dense host memory, device to host one copy when `src` is dense in `order`,
// and between GPUs a device-to-device (peer) copy.
Tensor copy_to(const Tensor& src, Device device, Order order);

// Copies elements between two strided layouts of the same shape and element size.
void copy_strided(const void* src, const Strides& src_strides, void* dst,
                  const Strides& dst_strides, const Shape& shape, size_t itemsize);

}  // namespace ndbuf
