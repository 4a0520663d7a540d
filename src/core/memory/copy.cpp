// copy_elements() and its strategies (memcpy, strided rows, tiled transpose), and the slabs
// long copies are cut into.
#include "ndbuf/memory/copy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "memory/element_cell.hpp"
#include "memory/strided_walk.hpp"
#include "memory/transpose_block.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

// The layout of a copy with the axes of length 1 dropped (they move no element).
struct Squeezed {
  bool empty = false;
  Shape shape;
  Strides src;
  Strides dst;
};

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

size_t fastest_axis(const Strides& strides) {
  size_t best = 0;
  for (size_t k = 1; k < strides.size(); ++k) {
    if (std::llabs(strides[k]) < std::llabs(strides[best])) best = k;
  }
  return best;
}

bool dense_in_one_order(const Shape& shape, const Strides& src, const Strides& dst) {
  for (const Order order : {Order::kRowMajor, Order::kColumnMajor}) {
    if (is_contiguous(shape, src, order) && is_contiguous(shape, dst, order)) return true;
  }
  return false;
}

// The two base addresses and the element size of one copy.
struct Sides {
  const char* src;
  char* dst;
  int64_t item;
};

// Copies the elements (a, b) for a in [a0, a1), b in [b0, b1) one at a time; strides in bytes.
template <class C>
void copy_rect(const char* src, int64_t sa, int64_t sb, char* dst, int64_t da, int64_t db,
               int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  for (int64_t a = a0; a < a1; ++a) {
    const char* s = src + a * sa;
    char* d = dst + a * da;
    for (int64_t b = b0; b < b1; ++b) std::memcpy(d + b * db, s + b * sb, sizeof(C));
  }
}

// As copy_rect() when the source is dense along a and the destination along b: whole square
// blocks through the register transpose, the ragged edges one element at a time.
template <class C>
void copy_rect_in_blocks(const char* src, int64_t sb, char* dst, int64_t da, int64_t a0, int64_t a1,
                         int64_t b0, int64_t b1) {
  constexpr int64_t kSide = transpose_block_side<C>();
  constexpr auto kItem = static_cast<int64_t>(sizeof(C));
  const int64_t a_end = a0 + (a1 - a0) / kSide * kSide;
  const int64_t b_end = b0 + (b1 - b0) / kSide * kSide;
  for (int64_t a = a0; a < a_end; a += kSide) {
    for (int64_t b = b0; b < b_end; b += kSide) {
      transpose_block<C>(src + a * kItem + b * sb, sb, dst + a * da + b * kItem, da);
    }
  }
  copy_rect<C>(src, kItem, sb, dst, da, kItem, a0, a_end, b_end, b1);
  copy_rect<C>(src, kItem, sb, dst, da, kItem, a_end, a1, b0, b1);
}

// Copies the na x nb plane whose axis `a` is fast in the source and axis `b` fast in the
// destination, tile by tile so that both sides of a tile stay in L1. Strides are in bytes.
template <class C>
void copy_plane(const char* src, int64_t sa, int64_t sb, char* dst, int64_t da, int64_t db,
                int64_t na, int64_t nb) {
  // Small tiles: rows of a power-of-two length alias in L1, so 64 rows of a tile would evict
  // each other (measured: 16 is the best size for 1024 x 1024 f32, twice as fast as 64).
  constexpr int64_t kTile = sizeof(C) <= 2 ? 32 : 16;
  constexpr auto kItem = static_cast<int64_t>(sizeof(C));
  const bool in_blocks = transpose_block_side<C>() > 1 && sa == kItem && db == kItem;
  for (int64_t a0 = 0; a0 < na; a0 += kTile) {
    const int64_t a1 = std::min(na, a0 + kTile);
    for (int64_t b0 = 0; b0 < nb; b0 += kTile) {
      const int64_t b1 = std::min(nb, b0 + kTile);
      if (in_blocks) {
        copy_rect_in_blocks<C>(src, sb, dst, da, a0, a1, b0, b1);
      } else {
        copy_rect<C>(src, sa, sb, dst, da, db, a0, a1, b0, b1);
      }
    }
  }
}

// Copies one row of `n` elements; strides are in bytes. Its own function so that the steps
// stay in registers (the char stores could otherwise alias a captured variable).
template <class C>
void copy_row(const char* src, int64_t src_step, char* dst, int64_t dst_step, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_step, src + i * src_step, sizeof(C));
}

// The tiled transpose on this thread: every plane of the two fastest axes (`a` of the source,
// `b` of the destination, which differ), tile by tile.
void copy_tiled(const Sides& at, const Strides& ss, const Strides& ds, const Shape& shape) {
  const size_t a = fastest_axis(ss);
  const size_t b = fastest_axis(ds);
  std::vector<size_t> outer;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k != a && k != b) outer.push_back(k);
  }
  const int64_t planes = checked_numel(shape) / (shape[a] * shape[b]);
  const int64_t item = at.item;
  with_cell(static_cast<size_t>(item), [&](auto cell) {
    using C = decltype(cell);
    walk_strided(shape, ss, ds, outer, 0, planes, [&](int64_t sp, int64_t dp) {
      copy_plane<C>(at.src + sp * item, ss[a] * item, ss[b] * item, at.dst + dp * item,
                    ds[a] * item, ds[b] * item, shape[a], shape[b]);
    });
  });
}

// The axis the tiled transpose splits among threads: the slowest destination axis other than
// the two of its planes, so that each block copies whole planes; with no other axis, the
// source's fastest one, in runs of whole tiles. (Blocks of the slowest destination axis when
// it was the source's fastest, an NHWC image batch read from an R array, cut every plane to
// one row of the tile: 8 MiB took 8.4 ms, element by element.)
size_t split_axis(const Strides& ss, const Strides& ds) {
  const size_t a = fastest_axis(ss), b = fastest_axis(ds);
  size_t axis = a;
  for (size_t k = 0; k < ds.size(); ++k) {
    if (k != a && k != b && (axis == a || std::llabs(ds[k]) > std::llabs(ds[axis]))) axis = k;
  }
  return axis;
}

// The tiled transpose in blocks along split_axis(), each on one thread.
void copy_tiled_parallel(const Sides& at, const Strides& ss, const Strides& ds,
                         const Shape& shape) {
  const size_t axis = split_axis(ss, ds);
  // Runs of indices a multiple of every tile's side (copy_plane()) along a plane's own axis.
  const int64_t run = axis == fastest_axis(ss) ? 32 : 1;
  const int64_t runs = (shape[axis] + run - 1) / run;
  const int64_t per_run = checked_numel(shape) / shape[axis] * run;
  for_each_block(
      runs, 2 * per_run * at.item,
      [&](int64_t begin, int64_t end) {
        Shape sub = shape;
        sub[axis] = std::min(shape[axis], end * run) - begin * run;
        const int64_t first = begin * run;
        const Sides block{at.src + first * ss[axis] * at.item, at.dst + first * ds[axis] * at.item,
                          at.item};
        copy_tiled(block, ss, ds, sub);
      },
      per_run);
}

// Rows along the destination's fastest axis, the other axes walked in destination memory
// order; blocks of rows run in parallel, each walking its own range.
void copy_rows_parallel(const Sides& at, const Strides& ss, const Strides& ds, const Shape& shape) {
  std::vector<size_t> axes(shape.size());
  std::iota(axes.begin(), axes.end(), size_t{0});
  std::stable_sort(axes.begin(), axes.end(),
                   [&](size_t x, size_t y) { return std::llabs(ds[x]) > std::llabs(ds[y]); });
  const size_t inner = axes.back();
  axes.pop_back();
  const int64_t n = shape[inner];
  const int64_t rows = checked_numel(shape) / n;
  const int64_t item = at.item;
  const int64_t s_step = ss[inner] * item;
  const int64_t d_step = ds[inner] * item;
  with_cell(static_cast<size_t>(item), [&](auto cell) {
    using C = decltype(cell);
    const auto copy_rows = [&](int64_t begin, int64_t end) {
      walk_strided(shape, ss, ds, axes, begin, end - begin, [&](int64_t sp, int64_t dp) {
        copy_row<C>(at.src + sp * item, s_step, at.dst + dp * item, d_step, n);
      });
    };
    for_each_block(rows, 2 * n * item, copy_rows, n);
  });
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

void copy_elements(const void* src, const Strides& src_strides, void* dst,
                   const Strides& dst_strides, const Shape& shape, size_t itemsize) {
  const Squeezed q = squeeze(shape, src_strides, dst_strides);
  if (q.empty) return;
  const Sides at{static_cast<const char*>(src), static_cast<char*>(dst),
                 static_cast<int64_t>(itemsize)};
  if (q.shape.empty()) {
    std::memcpy(at.dst, at.src, itemsize);
  } else if (dense_in_one_order(q.shape, q.src, q.dst)) {
    copy_bytes(at.dst, at.src,
               static_cast<size_t>(checked_nbytes(checked_numel(q.shape), itemsize)));
  } else if (q.shape.size() >= 2 && fastest_axis(q.src) != fastest_axis(q.dst)) {
    copy_tiled_parallel(at, q.src, q.dst, q.shape);
  } else {
    copy_rows_parallel(at, q.src, q.dst, q.shape);
  }
}

void for_each_slab(const Strides& src_strides, const Strides& dst_strides, const Shape& shape,
                   size_t itemsize, const std::function<void(const Slab&)>& body) {
  const int64_t numel = checked_numel(shape);
  if (numel == 0) return;
  const auto item = static_cast<int64_t>(itemsize);
  if (dense_in_one_order(shape, src_strides, dst_strides)) {
    const int64_t per_slab = std::max<int64_t>(1, kSlabBytes / item);
    for (int64_t i0 = 0; i0 < numel; i0 += per_slab) {
      const int64_t count = std::min(per_slab, numel - i0);
      body(Slab{{count}, {1}, {1}, i0, i0, count * item, (i0 + count) * item});
    }
    return;
  }
  // Along the slowest destination axis of those longer than 1 (there is one: a layout with
  // no such axis is dense in both orders).
  size_t slow = 0;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] > 1 &&
        (shape[slow] == 1 || std::llabs(dst_strides[k]) > std::llabs(dst_strides[slow]))) {
      slow = k;
    }
  }
  const int64_t unit_bytes = numel / shape[slow] * item;
  const int64_t per_slab = std::max<int64_t>(1, kSlabBytes / unit_bytes);
  for (int64_t i0 = 0; i0 < shape[slow]; i0 += per_slab) {
    const int64_t i1 = std::min(shape[slow], i0 + per_slab);
    Slab slab{shape,
              src_strides,
              dst_strides,
              i0 * src_strides[slow],
              i0 * dst_strides[slow],
              (i1 - i0) * unit_bytes,
              i1 * unit_bytes};
    slab.shape[slow] = i1 - i0;
    body(slab);
  }
}

void copy_elements_in_slabs(const void* src, const Strides& src_strides, void* dst,
                            const Strides& dst_strides, const Shape& shape, size_t itemsize,
                            const CopyTick& tick) {
  const auto item = static_cast<int64_t>(itemsize);
  for_each_slab(src_strides, dst_strides, shape, itemsize, [&](const Slab& slab) {
    copy_elements(static_cast<const char*>(src) + slab.src_offset * item, slab.src_strides,
                  static_cast<char*>(dst) + slab.dst_offset * item, slab.dst_strides, slab.shape,
                  itemsize);
    if (tick) tick(slab.bytes_done);
  });
}

}  // namespace ndbuf
