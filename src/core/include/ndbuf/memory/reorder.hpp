// Changing the memory order of dense arrays: R's column-major order <-> C's row-major order.
// A row-major array of shape (a, b, c) holds exactly the bytes of the column-major array of
// shape (c, b, a); going between the two orders at the *same* shape is a transpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ndbuf/base/shape.hpp"

namespace ndbuf {

// True when the two orders lay out `shape` identically: at most one axis is longer than 1
// (0-d, 1-d, (1, n), (n, 1, 1), ...) or the array has no elements.
bool orders_coincide(const Shape& shape);

// copy_strided() that walks the plane of the two fastest axes (that of the source and that of
// the destination) in cache-sized tiles when they differ, so a transpose reads and writes
// whole cache lines. Any strides, any shape; axes of length 1 are ignored.
void copy_strided_tiled(const void* src, const Strides& src_strides, void* dst,
                        const Strides& dst_strides, const Shape& shape, size_t itemsize);

// copy_strided_tiled() in blocks along the slowest destination axis, run on the available
// cores when the copy is large (for_each_block() in parallel.hpp decides); small copies never
// pay for a thread. Only plain memory is touched off the calling thread.
void copy_strided_parallel(const void* src, const Strides& src_strides, void* dst,
                           const Strides& dst_strides, const Shape& shape, size_t itemsize);

// Called after each slab of a long copy with the bytes written so far; may throw to stop it.
using CopyTick = std::function<void(int64_t bytes_done)>;

// Writes the dense `src` (laid out in `src_order`) to `dst` densely in `dst_order`, both of
// `shape`. A long copy goes in slabs of about 16 MiB along the slowest destination axis,
// with `tick` (when set) after each slab, on the calling thread; each slab runs on the
// available cores (copy_strided_parallel(), copy_bytes()).
void reorder_dense(const void* src, Order src_order, void* dst, Order dst_order, const Shape& shape,
                   size_t itemsize, const CopyTick& tick = nullptr);

}  // namespace ndbuf
