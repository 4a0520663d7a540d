// Reading and moving tensors across devices and layouts. Values are read only in host memory:
// every reader of a tensor that may live on another device goes through to_host() (or
// copy_to_dense() / make_dense(), which call it), and copy_to() moves a tensor between any
// two devices.
#pragma once

#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// The same view (shape, strides, dtype) over host memory: `src` itself on a host device
// (is_host()), else a copy of the device bytes the view spans.
Tensor to_host(const Tensor& src);

// Writes the elements of `src` densely, in `order`, to host memory `dst` (numel * itemsize
// bytes). `src` may live on any device.
void copy_to_dense(const Tensor& src, void* dst, Order order);

// A dense tensor in `order` in host memory: `src` itself when it already is one on the host,
// else a copy (on the host device cpu:0 when `src` lives on another platform).
Tensor make_dense(const Tensor& src, Order order);

// A fresh dense copy of `src` in `order` on `device`, between any two devices: host to device
// is one copy from dense host memory, device to host one copy when `src` is dense in `order`,
// and between GPUs a device-to-device (peer) copy.
Tensor copy_to(const Tensor& src, Device device, Order order);

}  // namespace ndbuf
