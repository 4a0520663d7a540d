#include "ndbuf/reorder.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "ndbuf/tensor.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kSlabBytes = int64_t{16} << 20;
constexpr int64_t kParallelBytes = int64_t{1} << 20;

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

void copy_plane_of(size_t itemsize, const char* src, int64_t sa, int64_t sb, char* dst,
                   int64_t da, int64_t db, int64_t na, int64_t nb) {
  switch (itemsize) {
    case 1: return copy_plane<Cell<1>>(src, sa, sb, dst, da, db, na, nb);
    case 2: return copy_plane<Cell<2>>(src, sa, sb, dst, da, db, na, nb);
    case 4: return copy_plane<Cell<4>>(src, sa, sb, dst, da, db, na, nb);
    case 8: return copy_plane<Cell<8>>(src, sa, sb, dst, da, db, na, nb);
    default: return copy_plane<Cell<16>>(src, sa, sb, dst, da, db, na, nb);
  }
}

size_t fastest_axis(const Strides& strides) {
  size_t best = 0;
  for (size_t k = 1; k < strides.size(); ++k) {
    if (std::llabs(strides[k]) < std::llabs(strides[best])) best = k;
  }
  return best;
}

void copy_in_slabs(const char* src, char* dst, int64_t nbytes, const CopyTick& tick) {
  for (int64_t done = 0; done < nbytes;) {
    const int64_t step = std::min(kSlabBytes, nbytes - done);
    std::memcpy(dst + done, src + done, static_cast<size_t>(step));
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
  if (checked_numel(shape) == 0) return;
  Shape sh;
  Strides ss;
  Strides ds;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    sh.push_back(shape[k]);
    ss.push_back(src_strides[k]);
    ds.push_back(dst_strides[k]);
  }
  if (sh.size() < 2 || fastest_axis(ss) == fastest_axis(ds)) {
    copy_strided(src, ss, dst, ds, sh, itemsize);
    return;
  }
  const size_t a = fastest_axis(ss);
  const size_t b = fastest_axis(ds);
  std::vector<size_t> outer;
  for (size_t k = 0; k < sh.size(); ++k) {
    if (k != a && k != b) outer.push_back(k);
  }
  const auto item = static_cast<int64_t>(itemsize);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  std::vector<int64_t> counter(sh.size(), 0);
  int64_t src_pos = 0;
  int64_t dst_pos = 0;
  const int64_t planes = checked_numel(sh) / (sh[a] * sh[b]);
  for (int64_t p = 0; p < planes; ++p) {
    copy_plane_of(itemsize, s + src_pos * item, ss[a] * item, ss[b] * item, d + dst_pos * item,
                  ds[a] * item, ds[b] * item, sh[a], sh[b]);
    // Odometer over the remaining axes, last one fastest.
    for (size_t j = outer.size(); j-- > 0;) {
      const size_t axis = outer[j];
      if (++counter[axis] < sh[axis]) {
        src_pos += ss[axis];
        dst_pos += ds[axis];
        break;
      }
      src_pos -= ss[axis] * (sh[axis] - 1);
      dst_pos -= ds[axis] * (sh[axis] - 1);
      counter[axis] = 0;
    }
  }
}

void copy_strided_parallel(const void* src, const Strides& src_strides, void* dst,
                           const Strides& dst_strides, const Shape& shape, size_t itemsize) {
  const int64_t numel = checked_numel(shape);
  const int64_t nbytes = numel * static_cast<int64_t>(itemsize);
  static const bool two_cores = std::thread::hardware_concurrency() >= 2;
  // The slowest destination axis among those longer than 1.
  size_t axis = shape.size();
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] > 1 && (axis == shape.size() || std::llabs(dst_strides[k]) >
                                                     std::llabs(dst_strides[axis]))) {
      axis = k;
    }
  }
  if (!two_cores || nbytes < kParallelBytes || axis == shape.size()) {
    copy_strided_tiled(src, src_strides, dst, dst_strides, shape, itemsize);
    return;
  }
  const int64_t half = shape[axis] / 2;
  Shape first = shape;
  Shape second = shape;
  first[axis] = half;
  second[axis] = shape[axis] - half;
  const auto item = static_cast<int64_t>(itemsize);
  const char* src2 = static_cast<const char*>(src) + half * src_strides[axis] * item;
  char* dst2 = static_cast<char*>(dst) + half * dst_strides[axis] * item;
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      copy_strided_tiled(src2, src_strides, dst2, dst_strides, second, itemsize);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  try {
    copy_strided_tiled(src, src_strides, dst, dst_strides, first, itemsize);
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (failure) std::rethrow_exception(failure);
}

void reorder_dense(const void* src, Order src_order, void* dst, Order dst_order,
                   const Shape& shape, size_t itemsize, const CopyTick& tick) {
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
