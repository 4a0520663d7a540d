// select_and_scatter by lanes and slabs (select_and_scatter_lanes.hpp).
#include "program/ops/reduction/select_and_scatter_lanes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/isa_clones.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/select_keep.hpp"
#include "program/ops/reduction/select_scatter_f32.hpp"

namespace ndbuf::program {
namespace {

constexpr int64_t kLaneChunk = 256;  // lanes of one window folded together (on the stack)

// How windows lie over the operand: dims [outer, lead) move windows or hold their elements;
// the trailing dims from `lead` on are `lanes` elements every window treats alike; the leading
// dims below `outer` are `slabs` whose windows pick only their own elements.
struct Layout {
  size_t outer = 0, lead = 0;
  int64_t lanes = 1, slabs = 1, slab_elements = 1, slab_windows = 1, window_elements = 1;
  Strides strides;  // row-major, in elements
};

Layout layout_of(const WindowGeometry& g, const Shape& shape) {
  Layout l;
  l.lead = shape.size();
  while (l.lead > 0 && g.axes[l.lead - 1].untouched(shape[l.lead - 1])) l.lanes *= shape[--l.lead];
  while (l.outer < l.lead && g.axes[l.outer].untouched(shape[l.outer])) l.slabs *= shape[l.outer++];
  for (size_t d = l.outer; d < l.lead; ++d) {
    l.slab_elements *= shape[d];
    l.slab_windows *= g.result_shape[d];
    l.window_elements *= g.window_shape[d];
  }
  l.slab_elements *= l.lanes;
  l.strides = row_major_strides(shape);
  return l;
}

// The offsets within its slab (of lane 0) of window w's in-bounds elements, in row-major
// window order: per dim the window's in-bounds element range, walked as an odometer.
struct WindowOffsets {
  std::vector<int64_t> start, stop, at, offsets;

  void of(const WindowGeometry& g, const Shape& shape, const Layout& l, int64_t w) {
    const size_t n = l.lead - l.outer;
    start.resize(n), stop.resize(n), at.resize(n);
    offsets.clear();
    int64_t offset = 0;
    for (size_t i = n; i-- > 0;) {
      const size_t d = l.outer + i;
      const WindowAxis& a = g.axes[d];
      const int64_t position = w % a.count * a.stride - a.low;
      w /= a.count;
      start[i] = std::max<int64_t>(0, -position);
      stop[i] = std::min(a.size, shape[d] - position);
      if (start[i] >= stop[i]) return;  // padding only: no element
      at[i] = start[i];
      offset += (position + start[i]) * l.strides[d];
    }
    for (;;) {
      offsets.push_back(offset);
      size_t i = n;
      for (;;) {
        if (i == 0) return;
        --i;
        const int64_t step = l.strides[l.outer + i];
        offset += step;
        if (++at[i] < stop[i]) break;
        offset -= (stop[i] - start[i]) * step;
        at[i] = start[i];
      }
    }
  }
};

// Folds window element k (`next`, m lanes) into the picks so far. Built for AVX2 too and picked
// at run time: a compare and two blends on 8 lanes of f32 in place of SSE2's 4 (the max-pool
// gradient spent a quarter of its time here). Selects only, so every ISA gives the same bits.
template <class T, class Keep>
NDBUF_ISA_CLONES("avx2", "default")
void fold_element(T* best, int32_t* kept, const T* next, int64_t m, int32_t k, Keep keep) {
  // omp simd: R's -O2 vectorises only loops whose trip count the vector width divides.
#pragma omp simd
  for (int64_t j = 0; j < m; ++j) {
    const bool stay = keep(best[j], next[j]);
    best[j] = stay ? best[j] : next[j];
    kept[j] = stay ? kept[j] : k;
  }
}

// The picks of one window, every lane: offsets relative to the slab, -1 for padding only. The
// fold tracks which window element each lane keeps (32-bit, as wide as an f32 lane, so that
// SSE2 vectorises the selects too) and turns it into an offset at the end.
template <class T, class Keep>
void pick_lanes(const T* x, const std::vector<int64_t>& offsets, int64_t lanes, Keep keep,
                int64_t* picks) {
  if (offsets.empty()) {
    std::fill(picks, picks + lanes, int64_t{-1});
    return;
  }
  T best[kLaneChunk];
  int32_t kept[kLaneChunk];
  const auto count = static_cast<int32_t>(offsets.size());
  for (int64_t j0 = 0; j0 < lanes; j0 += kLaneChunk) {
    const int64_t m = std::min(kLaneChunk, lanes - j0);
    const T* first = x + offsets[0] + j0;
    for (int64_t j = 0; j < m; ++j) {
      best[j] = first[j];
      kept[j] = 0;
    }
    for (int32_t k = 1; k < count; ++k) {
      fold_element(best, kept, x + offsets[static_cast<size_t>(k)] + j0, m, k, keep);
    }
    for (int64_t j = 0; j < m; ++j) picks[j0 + j] = offsets[static_cast<size_t>(kept[j])] + j0 + j;
  }
}

// The windows [first, second) along the last windowed dim of `l` whose elements along it all
// lie inside it: consecutive such windows of stride 1 read the same elements shifted by one
// step of that dim, `lanes` elements, so a row of them folds as one window of more lanes.
std::pair<int64_t, int64_t> inside_windows(const WindowGeometry& g, const Shape& shape,
                                           const Layout& l) {
  if (l.lead == l.outer) return {0, 0};
  const WindowAxis& a = g.axes[l.lead - 1];
  const int64_t n = shape[l.lead - 1];
  if (a.stride != 1) return {0, 0};
  const int64_t lo = std::clamp<int64_t>(a.low, 0, a.count);
  const int64_t hi = std::clamp<int64_t>(n - a.size + a.low + 1, lo, a.count);
  return {lo, hi};
}

// One slab's windows, row by row of the last windowed dim: a row's picks (the windows inside
// the dim together, the others one by one) and then `scatter(first window, picks, count)`,
// so picks stay in L1 and the windows scatter in row-major order.
template <class T, class Keep, class Scatter>
void slab_rows(const T* xs, const WindowGeometry& g, const Shape& shape, const Layout& l, Keep keep,
               WindowOffsets& window, std::vector<int64_t>& picks, Scatter scatter) {
  const int64_t row = l.lead == l.outer ? 1 : g.axes[l.lead - 1].count;
  const auto [lo, hi] = inside_windows(g, shape, l);
  picks.resize(static_cast<size_t>(row * l.lanes));
  for (int64_t w0 = 0; w0 < l.slab_windows; w0 += row) {
    for (int64_t c = 0; c < row; c = c == lo && hi > lo ? hi : c + 1) {
      window.of(g, shape, l, w0 + c);
      const int64_t lanes = c == lo && hi > lo ? (hi - lo) * l.lanes : l.lanes;
      pick_lanes(xs, window.offsets, lanes, keep, picks.data() + c * l.lanes);
    }
    scatter(w0 * l.lanes, picks.data(), row * l.lanes);
  }
}

// `count` copies of `fill` from `to`: a memset when its bits are all zero, the usual
// gradient's start (R's -O2 leaves std::fill's loop scalar; an f32 max-pool gradient on one
// thread, 4.5-5.2 -> 3.7-4.1 ms).
template <class T>
void fill_slab(T* to, int64_t count, T fill) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &fill, sizeof(T));
  if (std::all_of(bytes, bytes + sizeof(T), [](unsigned char b) { return b == 0; })) {
    std::memset(static_cast<void*>(to), 0, static_cast<size_t>(count) * sizeof(T));
  } else {
    std::fill(to, to + count, fill);
  }
}

// Runs `scatter(slab, result's slab, window offsets)` for every slab, in parallel, each slab
// first filled with `fill`.
template <class T, class F>
void for_each_slab(const Layout& l, int64_t bytes, T* r, T fill, F&& scatter) {
  for_each_block_rethrowing(
      l.slabs, bytes,
      [&](int64_t begin, int64_t end) {
        WindowOffsets window;
        for (int64_t slab = begin; slab < end; ++slab) {
          T* rs = r + slab * l.slab_elements;
          fill_slab(rs, l.slab_elements, fill);
          scatter(slab, rs, window);
        }
      },
      l.slab_elements * l.window_elements);
}

// Whether select_scatter_f32() serves these f32 windows: picked by IEEE comparison and added,
// lanes in whole groups of eight, on a CPU that runs it.
bool registers_serve(const Layout& l, FastComparator select, FastBody scatter) {
  return !select.total_order && scatter == FastBody::kAdd && l.lanes % 8 == 0 &&
         select_scatter_f32_available();
}

// One slab's windows in row-major order, each picked and scattered by select_scatter_f32():
// every position then takes its source values in window order, as slab_rows() gives them. The
// windows inside the last windowed dim read the same offsets shifted by `lanes` a window.
void slab_windows_f32(const float* xs, const float* ss, float* rs, const WindowGeometry& g,
                      const Shape& shape, const Layout& l, ComparatorOrder direction,
                      WindowOffsets& window) {
  const int64_t row = l.lead == l.outer ? 1 : g.axes[l.lead - 1].count;
  const auto [lo, hi] = inside_windows(g, shape, l);
  for (int64_t w = 0; w < l.slab_windows; ++w) {
    const int64_t c = w % row;
    const int64_t shift = c > lo && c < hi ? (c - lo) * l.lanes : 0;
    if (shift == 0) window.of(g, shape, l, w);
    if (window.offsets.empty()) continue;  // padding only
    select_scatter_f32(xs + shift, ss + w * l.lanes, rs + shift, window.offsets.data(),
                       static_cast<int32_t>(window.offsets.size()), l.lanes, direction);
  }
}

template <DType D>
void scatter_slabs(const Tensor& operand, const Tensor& source, const Tensor& init,
                   const WindowGeometry& g, FastComparator select, FastBody scatter,
                   Tensor& result) {
  using T = typename ElementType<D>::type;
  const Layout l = layout_of(g, operand.shape());
  const T* x = static_cast<const T*>(operand.data());
  const T* s = static_cast<const T*>(source.data());
  T* r = static_cast<T*>(result.data());
  T fill;
  std::memcpy(&fill, to_host(init).data(), sizeof(T));
  const int64_t bytes =
      (l.slab_windows * l.lanes * (l.window_elements + 1) + l.slab_elements) * int64_t{sizeof(T)};
  if constexpr (D == DType::kF32) {
    if (registers_serve(l, select, scatter)) {
      for_each_slab(l, bytes, r, fill, [&](int64_t slab, float* rs, WindowOffsets& window) {
        slab_windows_f32(x + slab * l.slab_elements, s + slab * l.slab_windows * l.lanes, rs, g,
                         operand.shape(), l, select.direction, window);
      });
      return;
    }
  }
  with_keep<T>(select, [&](auto keep) {
    with_combiner<D>(scatter, [&](auto combine) {
      for_each_slab(l, bytes, r, fill, [&](int64_t slab, T* rs, WindowOffsets& window) {
        std::vector<int64_t> picks;  // a row of windows' picks at a time (slab_rows() sizes it)
        const T* ss = s + slab * l.slab_windows * l.lanes;
        slab_rows(x + slab * l.slab_elements, g, operand.shape(), l, keep, window, picks,
                  [&](int64_t first, const int64_t* row, int64_t count) {
                    for (int64_t k = 0; k < count; ++k) {
                      const int64_t at = row[k];
                      if (at < 0) continue;
                      rs[at] = store<T>(combine(load(rs[at]), load(ss[first + k])));
                    }
                  });
      });
    });
  });
}

}  // namespace

Tensor select_and_scatter_lanes(const Tensor& operand, const Tensor& source, const Tensor& init,
                                const WindowGeometry& g, FastComparator select, FastBody scatter) {
  Tensor result = Tensor::allocate(init.dtype(), operand.shape(), Order::kRowMajor);
  dispatch(init.dtype(), [&](auto tag) {
    scatter_slabs<decltype(tag)::value>(operand, source, init, g, select, scatter, result);
  });
  return result;
}

}  // namespace ndbuf::program
