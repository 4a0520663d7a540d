// Reading and moving tensors across devices and layouts: to_host() for everything that reads
// values, copy_to_dense() and make_dense() for dense host copies, copy_to() between devices.
#include "ndbuf/memory/transfer.hpp"

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/device_api.hpp"

namespace ndbuf {
namespace {

// The elements [first, last] of the storage that a non-empty view touches.
struct Span {
  int64_t first;
  int64_t last;
};

Span span_of(const Tensor& t) {
  Span span{t.offset(), t.offset()};
  for (size_t k = 0; k < t.rank(); ++k) {
    const int64_t reach = t.strides()[k] * (t.shape()[k] - 1);
    (reach < 0 ? span.first : span.last) += reach;
  }
  return span;
}

}  // namespace

Tensor to_host(const Tensor& src) {
  if (is_host(src.device())) return src;
  if (src.numel() == 0) {
    return Tensor(allocate_host(0), src.dtype(), src.shape(), src.strides(), 0);
  }
  // The Tensor constructor has checked that the span lies inside the storage.
  const Span span = span_of(src);
  const auto item = static_cast<int64_t>(itemsize(src.dtype()));
  const auto nbytes = static_cast<size_t>((span.last - span.first + 1) * item);
  std::shared_ptr<Storage> host = allocate_host(nbytes);
  const char* first = static_cast<const char*>(src.storage()->data()) + span.first * item;
  device_api(src.device().platform)
      .copy_device_to_host(src.device().index, host->data(), first, nbytes);
  return Tensor(std::move(host), src.dtype(), src.shape(), src.strides(),
                src.offset() - span.first);
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
  copy_elements(src.data(), src.strides(), dst, contiguous_strides(src.shape(), order), src.shape(),
                itemsize(src.dtype()));
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

Tensor copy_to(const Tensor& src, Device device, Order order) {
  Tensor out = Tensor::allocate(src.dtype(), src.shape(), order, device);
  const auto nbytes = static_cast<size_t>(out.nbytes());
  if (nbytes == 0) return out;
  if (is_host(device)) {
    copy_to_dense(src, out.data(), order);
    return out;
  }
  DeviceApi& api = device_api(device.platform);
  if (src.device().platform == device.platform && src.is_contiguous(order)) {
    api.copy_device_to_device(device.index, out.data(), src.device().index, src.data(), nbytes);
    return out;
  }
  // Through the host: one copy to dense host memory where needed, then one upload.
  const Tensor staged =
      is_host(src.device()) && src.is_contiguous(order) ? src : make_dense(src, order);
  api.copy_host_to_device(device.index, out.data(), staged.data(), nbytes);
  return out;
}

}  // namespace ndbuf
