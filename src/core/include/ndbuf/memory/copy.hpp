// Copying elements between two strided layouts of one shape: the core's one copy routine, and
// the slabs that long copies (loading and saving files) are cut into. R's column-major order
// and C's row-major order are two such layouts: a row-major array of shape (a, b, c) holds
// exactly the bytes of the column-major array of shape (c, b, a), while going between the two
// orders at the *same* shape is a transpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ndbuf/base/shape.hpp"

namespace ndbuf {

// True when the two orders lay out `shape` identically: at most one axis is longer than 1
// (0-d, 1-d, (1, n), (n, 1, 1), ...) or the array has no elements.
bool orders_coincide(const Shape& shape);

// Copies the elements of an array of `shape` from `src` to `dst`, each side with its own
// strides (in elements, any sign), elements of `itemsize` bytes (1, 2, 4, 8 or 16). The two
// sides must not overlap. The strategy is chosen here: one memcpy when both sides are dense in
// the same order; a tiled transpose when the fastest axes of the two sides differ, so both read
// and write whole cache lines; otherwise rows along the destination's fastest axis. Large
// copies run in blocks on the available cores (for_each_block() in parallel.hpp decides, and
// polls for interrupts between rounds of blocks); small ones never start a thread. Axes of
// length 1 are ignored; an array with no elements copies nothing.
void copy_elements(const void* src, const Strides& src_strides, void* dst,
                   const Strides& dst_strides, const Shape& shape, size_t itemsize);

// The size long copies are cut into, so that progress is reported and file writes are bounded.
inline constexpr int64_t kSlabBytes = int64_t{16} << 20;

// One slab of a long copy: a run of indices along the slowest destination axis.
struct Slab {
  Shape shape;          // the slab's own shape
  Strides src_strides;  // its strides in the source (those of a run of bytes: {1})
  Strides dst_strides;  // its strides in the destination
  int64_t src_offset;   // element offset of its first element in the source
  int64_t dst_offset;   // element offset of its first element in the destination
  int64_t nbytes;       // its size
  int64_t bytes_done;   // the size of this slab and every one before it
};

// Cuts a copy of `shape` between the two layouts into slabs of about kSlabBytes (at least one
// index of the slowest destination axis) and calls body(slab) for each, in order, on this
// thread. When both sides are dense in one order the slabs are plain runs of bytes.
void for_each_slab(const Strides& src_strides, const Strides& dst_strides, const Shape& shape,
                   size_t itemsize, const std::function<void(const Slab&)>& body);

// Called after each slab of a long copy with the bytes written so far; may throw to stop it.
using CopyTick = std::function<void(int64_t bytes_done)>;

// copy_elements() slab by slab (for_each_slab()), calling `tick` (when set) after each.
void copy_elements_in_slabs(const void* src, const Strides& src_strides, void* dst,
                            const Strides& dst_strides, const Shape& shape, size_t itemsize,
                            const CopyTick& tick);

}  // namespace ndbuf
