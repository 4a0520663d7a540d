#include "ndbuf/memory/reorder.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "memory/strided_walk.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kSlabBytes = int64_t{16} << 20;

template <size_t N>
struct Cell {
  unsigned char bytes[N];
};

// Copies the na x nb plane whose axis `a` is fast in the source and axis `b` fast in the
// destination, tile by tile so that both sides of a tile stay in L1. Strides are in bytes.
template <class C>
void copy_plane(const char* src, int64_t sa, int64_t sb, char* dst, int64_t da, int64_t db,
                int64_t na, int64_t nb) {
  // Small tiles: rows of a power-of-two length alias in L1, so 64 rows of a tile would evict
  // each other (measured: 16 is the best size for 1024 x 1024 f32, twice as fast as 64).
  constexpr int64_t kTile = sizeof(C) <= 2 ? 32 : 16;
  for (int64_t a0 = 0; a0 < na; a0 += kTile) {
    const int64_t a1 = std::min(na, a0 + kTile);
    for (int64_t b0 = 0; b0 < nb; b0 += kTile) {
      const int64_t b1 = std::min(nb, b0 + kTile);
      for (int64_t a = a0; a < a1; ++a) {
        const char* s = src + a * sa;
        char* d = dst + a * da;
        for (int64_t b = b0; b < b1; ++b) std::memcpy(d + b * db, s + b * sb, sizeof(C));
      }
    }
  }
}

void copy_plane_of(size_t itemsize, const char* src, int64_t sa, int64_t sb, char* dst, int64_t da,
                   int64_t db, int64_t na, int64_t nb) {
  switch (itemsize) {
    case 1:
      return copy_plane<Cell<1>>(src, sa, sb, dst, da, db, na, nb);
    case 2:
      return copy_plane<Cell<2>>(src, sa, sb, dst, da, db, na, nb);
    case 4:
      return copy_plane<Cell<4>>(src, sa, sb, dst, da, db, na, nb);
    case 8:
      return copy_plane<Cell<8>>(src, sa, sb, dst, da, db, na, nb);
    default:
      return copy_plane<Cell<16>>(src, sa, sb, dst, da, db, na, nb);
  }
}

size_t fastest_axis(const Strides& strides) {
  size_t best = 0;
  for (size_t k = 1; k < strides.size(); ++k) {
    if (std::llabs(strides[k]) < std::llabs(strides[best])) best = k;
  }
  return best;
}

struct Squeezed {
  bool empty = false;
  Shape shape;
  Strides src;
  Strides dst;
};

// Drops the axes of length 1, which do not move any element.
Squeezed squeeze(const Shape& shape, const Strides& src, const Strides& dst) {
  Squeezed q;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) q.empty = true;
    if (shape[k] == 1) continue;
    q.shape.push_back(shape[k]);
    q.src.push_back(src[k]);
    q.dst.push_back(dst[k]);
  }
  return q;
}

// An element-by-element copy along the destination's fastest axis, on this thread only
// (blocks of copy_strided_parallel() must not start threads or poll for interrupts).
void copy_serial(const char* s, const Strides& ss, char* d, const Strides& ds, const Shape& shape,
                 size_t itemsize) {
  const auto item = static_cast<int64_t>(itemsize);
  if (shape.empty()) {
    std::memcpy(d, s, itemsize);
    return;
  }
  const size_t inner = fastest_axis(ds);
  std::vector<size_t> outer;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k != inner) outer.push_back(k);
  }
  const int64_t rows = checked_numel(shape) / shape[inner];
  walk_strided(shape, ss, ds, outer, 0, rows, [&](int64_t sp, int64_t dp) {
    for (int64_t i = 0; i < shape[inner]; ++i) {
      std::memcpy(d + (dp + i * ds[inner]) * item, s + (sp + i * ss[inner]) * item, itemsize);
    }
  });
}

void copy_in_slabs(const char* src, char* dst, int64_t nbytes, const CopyTick& tick) {
  for (int64_t done = 0; done < nbytes;) {
    const int64_t step = std::min(kSlabBytes, nbytes - done);
    copy_bytes(dst + done, src + done, static_cast<size_t>(step));
    done += step;
    if (tick) tick(done);
  }
}

}  // namespace

bool orders_coincide(const Shape& shape) {
  int long_axes = 0;
  for (const int64_t d : shape) {
    if (d == 0) return true;
    if (d > 1) ++long_axes;
  }
  return long_axes <= 1;
}

void copy_strided_tiled(const void* src, const Strides& src_strides, void* dst,
                        const Strides& dst_strides, const Shape& shape, size_t itemsize) {
  const Squeezed q = squeeze(shape, src_strides, dst_strides);
  if (q.empty) return;
  const auto item = static_cast<int64_t>(itemsize);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (q.shape.size() < 2 || fastest_axis(q.src) == fastest_axis(q.dst)) {
    copy_serial(s, q.src, d, q.dst, q.shape, itemsize);
    return;
  }
  const size_t a = fastest_axis(q.src);
  const size_t b = fastest_axis(q.dst);
  std::vector<size_t> outer;
  for (size_t k = 0; k < q.shape.size(); ++k) {
    if (k != a && k != b) outer.push_back(k);
  }
  const int64_t planes = checked_numel(q.shape) / (q.shape[a] * q.shape[b]);
  walk_strided(q.shape, q.src, q.dst, outer, 0, planes, [&](int64_t src_pos, int64_t dst_pos) {
    copy_plane_of(itemsize, s + src_pos * item, q.src[a] * item, q.src[b] * item,
                  d + dst_pos * item, q.dst[a] * item, q.dst[b] * item, q.shape[a], q.shape[b]);
  });
}

void copy_strided_parallel(const void* src, const Strides& src_strides, void* dst,
                           const Strides& dst_strides, const Shape& shape, size_t itemsize) {
  const Squeezed q = squeeze(shape, src_strides, dst_strides);
  if (q.empty) return;
  if (q.shape.size() < 2 || fastest_axis(q.src) == fastest_axis(q.dst)) {
    copy_strided(src, q.src, dst, q.dst, q.shape, itemsize);  // parallel itself
    return;
  }
  // Blocks along the slowest destination axis, each copied in tiles on one thread.
  size_t axis = 0;
  for (size_t k = 1; k < q.shape.size(); ++k) {
    if (std::llabs(q.dst[k]) > std::llabs(q.dst[axis])) axis = k;
  }
  const int64_t per_index = checked_numel(q.shape) / q.shape[axis];
  const auto item = static_cast<int64_t>(itemsize);
  for_each_block(
      q.shape[axis], 2 * per_index * item,
      [&](int64_t begin, int64_t end) {
        Shape sub = q.shape;
        sub[axis] = end - begin;
        copy_strided_tiled(static_cast<const char*>(src) + begin * q.src[axis] * item, q.src,
                           static_cast<char*>(dst) + begin * q.dst[axis] * item, q.dst, sub,
                           itemsize);
      },
      per_index);
}

void reorder_dense(const void* src, Order src_order, void* dst, Order dst_order, const Shape& shape,
                   size_t itemsize, const CopyTick& tick) {
  const int64_t numel = checked_numel(shape);
  const int64_t nbytes = checked_nbytes(numel, itemsize);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (src_order == dst_order || orders_coincide(shape)) {
    copy_in_slabs(s, d, nbytes, tick);
    return;
  }
  const Strides ss = contiguous_strides(shape, src_order);
  const Strides ds = contiguous_strides(shape, dst_order);
  // Slabs along the slowest destination axis (the one with the largest stride).
  size_t slow = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] > 1 && (shape[slow] == 1 || ds[k] > ds[slow])) slow = k;
  }
  const int64_t unit_bytes = ds[slow] * static_cast<int64_t>(itemsize);
  const int64_t per_slab = std::max<int64_t>(1, kSlabBytes / unit_bytes);
  const auto item = static_cast<int64_t>(itemsize);
  for (int64_t i0 = 0; i0 < shape[slow]; i0 += per_slab) {
    const int64_t i1 = std::min(shape[slow], i0 + per_slab);
    Shape sub = shape;
    sub[slow] = i1 - i0;
    copy_strided_parallel(s + i0 * ss[slow] * item, ss, d + i0 * ds[slow] * item, ds, sub,
                          itemsize);
    if (tick) tick(i1 * unit_bytes);
  }
}

}  // namespace ndbuf
