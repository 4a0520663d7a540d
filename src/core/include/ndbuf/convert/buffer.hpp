// Making buffers (the PJRTBuffer face of a tensor) from host data: R vectors (strictly
// converted, or aliased without a copy) and raw bytes, always as dense column-major tensors
// with R's dims. Buffers made elsewhere may have other layouts (tensor.hpp).
#pragma once

#include <functional>
#include <memory>

#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

struct BufferFromR {
  Tensor tensor;
  int64_t missing_stored = 0;  // R NAs that arrived as INT_MIN / INT64_MIN (zero-copy only)
};

// Hands out a read-only Storage over the source vector's own bytes that keeps the vector
// alive; supplied by the embedding runtime, called only when the buffer aliases the vector.
using AliasStorage = std::function<std::shared_ptr<Storage>()>;

// A buffer of `shape` from an R vector: aliased when is_zero_copy() holds and no recycling is
// needed, else converted into fresh memory. Throws before any buffer exists when a value
// does not fit or the length does not match the shape. On a device other than the host the
// buffer is made on the host by the same rules (`alias` must hand out host storage), then
// copied to the device once.
BufferFromR buffer_from_r(const RVectorView& source, DType dtype, const Shape& shape,
                          MissingCheck check, Device device, const AliasStorage& alias);

// A buffer from `nbytes` raw bytes holding the elements in `order`. The byte count must be
// numel * itemsize (a 0-d shape holds one element); pred bytes must be 0 or 1.
Tensor buffer_from_bytes(const void* bytes, int64_t nbytes, DType dtype, const Shape& shape,
                         Order order, Device device);

// A dense column-major buffer with uninitialised contents.
Tensor buffer_empty(DType dtype, const Shape& shape, Device device);

// A dense copy of the buffer's elements on another device, between any two devices (CPU
// devices share host memory, but each buffer still owns its storage).
Tensor buffer_copy_to(const Tensor& buffer, Device device);

}  // namespace ndbuf
