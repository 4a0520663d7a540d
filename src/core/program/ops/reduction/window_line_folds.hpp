// van Herk / Gil-Werman folds of one line for window_slide.cpp: the suffix and prefix folds of
// a line's blocks, computed lazily, and the windows that combine them (see there).
#pragma once

#include <algorithm>
#include <cstdint>

#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {

// The block holding a position that only moves forward (no division per window).
struct BlockCursor {
  int64_t index = 0, start = 0;
  void reach(int64_t t, int64_t block) {
    if (t - start >= block) {
      index = t / block;
      start = index * block;
    }
  }
};

// One lane group of one line: `width` neighbouring inner elements at each position, with the
// suffix folds of one block and the prefix folds of one block (both `width` lanes a position).
template <class In, class A, class Combine, class Load>
struct LineFolds {
  const In* x;  // position 0, lane 0
  int64_t inner, width, n, block;
  Combine combine;
  Load load;
  A* suffix;
  A* prefix;
  int64_t suffix_block = -1, suffix_low = 0, prefix_block = -1, prefix_high = 0;

  // Folds of positions lo .. (end of lo's block `at`), one per lane.
  const A* suffix_at(int64_t lo, const BlockCursor& at) {
    const int64_t start = at.start, end = std::min(start + block, n) - 1;
    if (suffix_block != at.index) {
      suffix_block = at.index;
      suffix_low = end + 1;
    }
    if (width == 1) {
      suffix_one_lane(lo, start, end);
    } else {
      suffix_lanes(lo, start, end);
    }
    suffix_low = std::min(suffix_low, lo);
    return suffix + (lo - start) * width;
  }

  // One lane: the fold runs in a register (through memory, each step would wait for the
  // store before it to be forwarded, several times an add's latency).
  void suffix_one_lane(int64_t lo, int64_t start, int64_t end) {
    int64_t t = suffix_low - 1;
    if (t < lo) return;
    A fold = t == end ? load(x[t * inner]) : combine(load(x[t * inner]), suffix[t + 1 - start]);
    suffix[t - start] = fold;
    for (--t; t >= lo; --t) {
      fold = combine(load(x[t * inner]), fold);
      suffix[t - start] = fold;
    }
  }

  void suffix_lanes(int64_t lo, int64_t start, int64_t end) {
    for (int64_t t = suffix_low - 1; t >= lo; --t) {
      const In* xt = x + t * inner;
      A* s = suffix + (t - start) * width;
      if (t == end) {
        for (int64_t j = 0; j < width; ++j) s[j] = load(xt[j]);
      } else {
        const A* later = s + width;
        for (int64_t j = 0; j < width; ++j) s[j] = combine(load(xt[j]), later[j]);
      }
    }
  }

  // Folds of positions (start of hi's block `at`) .. hi, one per lane.
  const A* prefix_at(int64_t hi, const BlockCursor& at) {
    const int64_t start = at.start;
    if (prefix_block != at.index) {
      prefix_block = at.index;
      prefix_high = start - 1;
    }
    if (width == 1) {
      prefix_one_lane(hi, start);
    } else {
      prefix_lanes(hi, start);
    }
    prefix_high = std::max(prefix_high, hi);
    return prefix + (hi - start) * width;
  }

  void prefix_one_lane(int64_t hi, int64_t start) {
    int64_t t = prefix_high + 1;
    if (t > hi) return;
    A fold = t == start ? load(x[t * inner]) : combine(prefix[t - 1 - start], load(x[t * inner]));
    prefix[t - start] = fold;
    for (++t; t <= hi; ++t) {
      fold = combine(fold, load(x[t * inner]));
      prefix[t - start] = fold;
    }
  }

  void prefix_lanes(int64_t hi, int64_t start) {
    for (int64_t t = prefix_high + 1; t <= hi; ++t) {
      const In* xt = x + t * inner;
      A* p = prefix + (t - start) * width;
      if (t == start) {
        for (int64_t j = 0; j < width; ++j) p[j] = load(xt[j]);
      } else {
        const A* earlier = p - width;
        for (int64_t j = 0; j < width; ++j) p[j] = combine(earlier[j], load(xt[j]));
      }
    }
  }
};

// Windows [c0, c1) of `a` over one line, written `stride` apart from `y`. Consecutive windows
// that start in one block and end, unclipped, in the next are combined in one tight loop.
template <class Line, class Out, class A, class Emit>
void slide_windows(Line& line, const WindowAxis& a, int64_t c0, int64_t c1, Out* y, int64_t stride,
                   A identity, Emit emit) {
  const int64_t n = line.n, block = line.block, w = line.width;
  BlockCursor lo_block, hi_block;
  for (int64_t c = c0; c < c1; ++c, y += stride) {
    const int64_t p0 = c * a.stride - a.low;
    const int64_t lo = std::max<int64_t>(p0, 0), hi = std::min(p0 + a.size - 1, n - 1);
    if (lo > hi) {
      for (int64_t j = 0; j < w; ++j) y[j] = emit(identity);
      continue;
    }
    lo_block.reach(lo, block);
    hi_block.reach(hi, block);
    if (lo_block.index == hi_block.index) {
      // Within one block a window starts at the block's start or ends at its end.
      const A* f =
          lo == lo_block.start ? line.prefix_at(hi, hi_block) : line.suffix_at(lo, lo_block);
      for (int64_t j = 0; j < w; ++j) y[j] = emit(f[j]);
      continue;
    }
    int64_t run = 1;  // lo's block ends before hi's, so it is a whole block
    if (hi == p0 + a.size - 1) {
      const int64_t lo_room = lo_block.start + block - 1 - lo;
      const int64_t hi_room = std::min(hi_block.start + block, n) - 1 - hi;
      run = std::min({lo_room / a.stride, hi_room / a.stride, c1 - 1 - c}) + 1;
    }
    const int64_t step = a.stride * w;
    const A* s = line.suffix_at(lo, lo_block);
    const A* p = line.prefix_at(hi + (run - 1) * a.stride, hi_block) - (run - 1) * step;
    for (int64_t k = 0; k < run; ++k) {
      const A* sk = s + k * step;
      const A* pk = p + k * step;
      Out* yk = y + k * stride;
      for (int64_t j = 0; j < w; ++j) yk[j] = emit(line.combine(sk[j], pk[j]));
    }
    c += run - 1;
    y += (run - 1) * stride;
  }
}

}  // namespace ndbuf::program
