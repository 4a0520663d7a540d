// The leaf feeds of fused loops (leaf_feed.hpp).
#include "program/exec/leaf_feed.hpp"

#include <algorithm>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "memory/element_cell.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {
namespace {

// The columns a transposing leaf gathers at once.
constexpr int64_t kBand = 16;

// Output elements [start, start + count) of a periodic leaf whose period is at least a tile:
// in place, or copied into `own` where the tile wraps around the period's end.
const void* periodic_tile(const LeafFeed& feed, int64_t start, int64_t count, void* own) {
  int64_t at = start % feed.period;
  if (at + count <= feed.period) return feed.base + at * static_cast<int64_t>(feed.item);
  auto* dst = static_cast<unsigned char*>(own);
  while (count > 0) {
    const int64_t run = std::min(count, feed.period - at);
    std::memcpy(dst, feed.base + at * static_cast<int64_t>(feed.item),
                static_cast<size_t>(run) * feed.item);
    dst += run * static_cast<int64_t>(feed.item);
    count -= run;
    at = 0;
  }
  return own;
}

// Fills bytes [prefix, total) of `dst` with copies of its first `prefix` bytes, doubling what is
// written with each memcpy.
void repeat_prefix(unsigned char* dst, size_t prefix, size_t total) {
  for (size_t filled = prefix; filled < total;) {
    const size_t n = std::min(filled, total - filled);
    std::memcpy(dst + filled, dst, n);
    filled += n;
  }
}

// `count` copies of `value` into `dst`. Long runs double what is written (repeat_prefix()): the
// element loop is not vectorised at R's -O2, and it was a third of a fused select's time filling
// one row index per row (jnp.tril's mask, 1000 x 1000).
template <class C>
void fill_run(C* dst, int64_t count, const C& value) {
  constexpr int64_t kDoublingFrom = 32;
  if (count < kDoublingFrom) {
    std::fill(dst, dst + count, value);
    return;
  }
  std::memcpy(dst, &value, sizeof(C));
  repeat_prefix(reinterpret_cast<unsigned char*>(dst), sizeof(C),
                static_cast<size_t>(count) * sizeof(C));
}

// Where a strided walk stands: the output index and the leaf's element offset there.
struct WalkPosition {
  const Shape& shape;
  const Strides& strides;
  std::vector<int64_t> index;
  int64_t offset = 0;

  WalkPosition(const Shape& s, const Strides& st, int64_t start)
      : shape(s), strides(st), index(s.size(), 0) {
    for (size_t a = s.size(), rest = static_cast<size_t>(start); a-- > 0;) {
      index[a] = static_cast<int64_t>(rest) % s[a];
      rest /= static_cast<size_t>(s[a]);
      offset += index[a] * st[a];
    }
  }

  // `n` steps along `axis` (at most to its end), carrying into the earlier axes.
  void advance(size_t axis, int64_t n) {
    index[axis] += n;
    offset += n * strides[axis];
    for (size_t a = axis; a > 0 && index[a] == shape[a]; --a) {
      offset -= index[a] * strides[a];
      index[a] = 0;
      ++index[a - 1];
      offset += strides[a - 1];
    }
  }
};

// Rows [0, rows - rows % 4) of columns [j0, j1) of a column-major block of 4-byte elements
// (element (r, j) at src[r + j * col_stride]) into dst[r * dst_stride + j], four by four
// through SSE2's 32-bit unpacks (bit moves only, so NaN payloads pass unchanged), the columns
// past a multiple of four one by one. Returns the rows written.
int64_t transpose_quads(const uint32_t* src, int64_t col_stride, uint32_t* dst, int64_t dst_stride,
                        int64_t rows, int64_t j0, int64_t j1) {
#ifndef __SSE2__
  return 0;  // the element loop does it all
#else
  const int64_t quad_rows = rows - rows % 4;
  const int64_t quad_end = j0 + (j1 - j0) / 4 * 4;
  for (int64_t r = 0; r < quad_rows; r += 4) {
    int64_t j = j0;
    for (; j < quad_end; j += 4) {
      const auto load = [&](int64_t c) {
        return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + r + c * col_stride));
      };
      const __m128i c0 = load(j), c1 = load(j + 1), c2 = load(j + 2), c3 = load(j + 3);
      const __m128i lo01 = _mm_unpacklo_epi32(c0, c1), hi01 = _mm_unpackhi_epi32(c0, c1);
      const __m128i lo23 = _mm_unpacklo_epi32(c2, c3), hi23 = _mm_unpackhi_epi32(c2, c3);
      const auto store = [&](int64_t k, __m128i v) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (r + k) * dst_stride + j), v);
      };
      store(0, _mm_unpacklo_epi64(lo01, lo23));
      store(1, _mm_unpackhi_epi64(lo01, lo23));
      store(2, _mm_unpacklo_epi64(hi01, hi23));
      store(3, _mm_unpackhi_epi64(hi01, hi23));
    }
    for (; j < j1; ++j) {
      for (int64_t k = 0; k < 4; ++k) dst[(r + k) * dst_stride + j] = src[r + k + j * col_stride];
    }
  }
  return quad_rows;
#endif
}

// Output elements [start, start + count) of any other leaf, walked with the leaf's strides into
// `own`: row by row, or for a transposing leaf whole rows at once in the leaf's memory order
// (each cache line read once per block of rows, not once per row).
void strided_tile(const LeafFeed& feed, const Shape& shape, int64_t start, int64_t count,
                  void* own) {
  const size_t rank = shape.size();
  const int64_t cols = shape[rank - 1];
  const int64_t last_stride = feed.strides->back();
  WalkPosition at(shape, *feed.strides, start);
  with_cell(feed.item, [&](auto tag) {
    using C = decltype(tag);
    const C* src = reinterpret_cast<const C*>(feed.base);
    C* dst = static_cast<C*>(own);
    while (count > 0) {
      if (rank >= 2 && is_transposing(feed) && at.index[rank - 1] == 0 && count >= 2 * cols) {
        const int64_t rows = std::min(count / cols, shape[rank - 2] - at.index[rank - 2]);
        const int64_t row_stride = (*feed.strides)[rank - 2];
        // Bands of kBand columns: a band's source lines stay in cache down its rows, and each
        // row's part of the band is written contiguously.
        for (int64_t j0 = 0; j0 < cols; j0 += kBand) {
          const int64_t j1 = std::min(cols, j0 + kBand);
          int64_t r = 0;
          if constexpr (sizeof(C) == 4) {
            if (row_stride == 1) {
              r = transpose_quads(reinterpret_cast<const uint32_t*>(src + at.offset), last_stride,
                                  reinterpret_cast<uint32_t*>(dst), cols, rows, j0, j1);
            }
          }
          for (; r < rows; ++r) {
            const C* row = src + at.offset + r * row_stride;
            for (int64_t j = j0; j < j1; ++j) dst[r * cols + j] = row[j * last_stride];
          }
        }
        dst += rows * cols;
        count -= rows * cols;
        at.advance(rank - 2, rows);
        continue;
      }
      const int64_t run = std::min(count, cols - at.index[rank - 1]);
      if (last_stride == 0) {  // a column broadcast: one element per row
        fill_run(dst, run, src[at.offset]);
      } else if (last_stride == 1) {
        std::copy(src + at.offset, src + at.offset + run, dst);
      } else {
        for (int64_t i = 0; i < run; ++i) dst[i] = src[at.offset + i * last_stride];
      }
      dst += run;
      count -= run;
      at.advance(rank - 1, run);
    }
  });
}

}  // namespace

LeafSource leaf_source(const FusedLeaf& leaf, const Values& args, size_t rank) {
  LeafSource source;
  read_leaf(source, leaf, args, rank);
  return source;
}

void read_leaf(LeafSource& source, const FusedLeaf& leaf, const Values& args, size_t rank) {
  const Tensor& given =
      leaf.kind == FusedLeaf::Kind::kConstant ? *leaf.constant : args[leaf.operand].get();
  source.borrowed = nullptr;
  source.held.reset();
  if (is_host(given.device())) {
    source.borrowed = &given;
  } else {
    source.held = to_host(given);
  }
  const Tensor& t = source.tensor();
  if (leaf.kind == FusedLeaf::Kind::kScalar) {
    source.strides.clear();
  } else if (leaf.kind != FusedLeaf::Kind::kBroadcast) {
    source.strides.assign(t.strides().begin(), t.strides().end());
  } else {
    source.strides.assign(rank, 0);
    for (size_t j = 0; j < leaf.dims.size(); ++j) {
      if (t.shape()[j] != 1) source.strides[leaf.dims[j]] = t.strides()[j];
    }
  }
}

int64_t leaf_period(const LeafSource& leaf, const Shape& shape) {
  if (leaf.strides.empty()) return 1;
  int64_t dense = 1;
  size_t axis = shape.size();
  while (axis > 0 && (shape[axis - 1] == 1 || leaf.strides[axis - 1] == dense)) {
    dense *= shape[--axis];
  }
  for (size_t a = 0; a < axis; ++a) {
    if (shape[a] != 1 && leaf.strides[a] != 0) return 0;
  }
  return dense;
}

LeafFeed leaf_feed(const LeafSource& source, const Shape& shape, int64_t lanes) {
  LeafFeed feed;
  prepare_feed(feed, source, shape, lanes);
  return feed;
}

void prepare_feed(LeafFeed& feed, const LeafSource& source, const Shape& shape, int64_t lanes) {
  feed.item = itemsize(source.tensor().dtype());
  feed.base = static_cast<const unsigned char*>(source.tensor().storage()->data()) +
              source.tensor().offset() * static_cast<int64_t>(feed.item);
  feed.period = leaf_period(source, shape);
  feed.strides = &source.strides;
  feed.repeated.clear();
  if (feed.period > 0 && feed.period < lanes) {
    const size_t period_bytes = static_cast<size_t>(feed.period) * feed.item;
    const size_t total = static_cast<size_t>(lanes + feed.period) * feed.item;
    feed.repeated.resize(total);
    std::memcpy(feed.repeated.data(), feed.base, period_bytes);
    repeat_prefix(feed.repeated.data(), period_bytes, total);
  }
}

bool is_transposing(const LeafFeed& feed) {
  if (feed.period > 0) return false;
  const int64_t last = feed.strides->back();
  return last != 0 && last != 1;
}

const void* feed_lanes(const LeafFeed& feed, const Shape& shape, int64_t start, int64_t count,
                       void* own) {
  if (!feed.repeated.empty()) {
    return feed.repeated.data() + (start % feed.period) * static_cast<int64_t>(feed.item);
  }
  if (feed.period > 0) return periodic_tile(feed, start, count, own);
  strided_tile(feed, shape, start, count, own);
  return own;
}

void feed_argument(const LeafFeed& feed, size_t k, const Shape& shape, int64_t start, int64_t count,
                   ElementTile& tile) {
  tile.bind_argument(k, feed_lanes(feed, shape, start, count, tile.argument(k)));
}

}  // namespace ndbuf::program
