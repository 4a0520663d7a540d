// van Herk / Gil-Werman along one axis at a time: the axis's n elements are cut into blocks of
// B = min(window, n) elements. A window clipped to the axis holds at most B elements, so it
// lies in one block or in two neighbouring ones, and its fold is a suffix fold of the first
// (from the window's start to the block's end) combined with a prefix fold of the second (from
// the block's start to the window's end). Windows move right, so the folds are computed
// lazily, block by block, at most once each: two combines per element and one per window,
// whatever the window's size. Small windows of stride 1 (pooling's 2 x 2 and 3 x 3) fold each
// output's window directly instead, on vector lanes (span_axis()). Box windows of these bodies
// are separable, so a window over several axes is a pass along each; the last axis goes first,
// so maximum / minimum pick the first NaN (or the first of equal extremes) in the window walk's
// row-major order.
#include "program/ops/reduction/window_slide.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "base/isa_clones.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/axis_extent.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/fast_combine.hpp"

namespace ndbuf::program {
namespace {

constexpr int64_t kLanes = 256;                         // inner elements slid together
constexpr int64_t kScratchElements = int64_t{1} << 16;  // per fold buffer, when windows allow
constexpr int64_t kRunWindows = 4096;  // windows of one line computed by one work item, at least
constexpr int64_t kRunBlocks = 16;     // blocks a run's windows span, at least
// Windows of stride 1 up to this size fold directly (span_axis()): `size` combines an output on
// vector lanes against van Herk's three on scalar folds through scratch memory.
constexpr int64_t kSpanWindowMax = 8;
constexpr int64_t kSpanChunk = 1024;  // outputs of one line folded together, in registers' reach

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

// acc[i] = combine(acc[i], load(x[i])) for i < count: span_axis()'s folds. Built for AVX2 too
// and picked at run time, twice SSE2's lanes for a loop that runs in the first-level cache;
// without the FMA target every lane rounds as the baseline code does.
template <class In, class A, class Combine, class Load>
NDBUF_ISA_CLONES("avx2", "default")
void fold_run(A* acc, const In* x, int64_t count, Combine combine, Load load) {
  // omp simd: R's -O2 vectorises only loops whose trip count the vector width divides.
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) acc[i] = combine(acc[i], load(x[i]));
}

// Small windows of stride 1 along the axis of `e`: in a line (outer index o) the k-th elements
// of consecutive windows lie consecutively, so output q = c * inner + j reads input
// q + (k - low) * inner for every k whose element lies inside the axis (padding is the identity
// and adds nothing). Each output folds its window in order k = 0, 1, ..., so maximum / minimum
// keep the walk's first NaN or extreme, in chunks of kSpanChunk outputs, in parallel. Folds
// start from `start`, the body's identity (a sum's is -0, which keeps a sum of -0s negative).
template <class In, class Out, class A, class Combine, class Load, class Emit>
void span_axis(const In* x, Out* y, const AxisExtent& e, const WindowAxis& a, A start,
               Combine combine, Load load, Emit emit) {
  const int64_t n = e.length, inner = e.inner, line = a.count * inner;
  const int64_t chunks = (line + kSpanChunk - 1) / kSpanChunk;
  const int64_t bytes = kSpanChunk * (a.size * int64_t{sizeof(In)} + int64_t{sizeof(Out)});
  for_each_block(
      e.outer * chunks, bytes,
      [&](int64_t begin, int64_t end) {
        A acc[kSpanChunk];
        for (int64_t item = begin; item < end; ++item) {
          const int64_t o = item / chunks, q0 = item % chunks * kSpanChunk;
          const int64_t q1 = std::min(line, q0 + kSpanChunk);
          const In* xo = x + o * n * inner;
          Out* yo = y + o * line;
#pragma omp simd
          for (int64_t q = 0; q < q1 - q0; ++q) acc[q] = start;
          for (int64_t k = 0; k < a.size; ++k) {
            const int64_t shift = (k - a.low) * inner;
            const int64_t lo = std::max(q0, std::clamp<int64_t>(a.low - k, 0, a.count) * inner);
            const int64_t hi = std::min(q1, std::clamp<int64_t>(n + a.low - k, 0, a.count) * inner);
            if (hi > lo) fold_run(acc + (lo - q0), xo + lo + shift, hi - lo, combine, load);
          }
#pragma omp simd
          for (int64_t q = q0; q < q1; ++q) yo[q] = emit(acc[q - q0]);
        }
      },
      kSpanChunk * a.size);
}

// The windows of `a` along the axis of `e`, from `x` into `y` (the axis `a.count` long there),
// in parallel over (outer index, lane group, run of windows): a run starts its folds afresh,
// recomputing at most two blocks, so runs span at least kRunBlocks blocks. `emit` turns a fold
// into an output element. False when scratch memory ran out (a parallel loop must not throw).
// `fold_start` starts span_axis()'s folds (see there).
template <class In, class Out, class A, class Combine, class Load, class Emit>
bool slide_axis(const In* x, Out* y, const AxisExtent& e, const WindowAxis& a, A identity,
                A fold_start, Combine combine, Load load, Emit emit) {
  if (a.stride == 1 && a.size <= kSpanWindowMax) {
    span_axis(x, y, e, a, fold_start, combine, load, emit);
    return true;
  }
  const int64_t n = e.length, count = a.count, inner = e.inner;
  const int64_t block = std::min(a.size, n);
  const int64_t width = std::max<int64_t>(
      1, std::min({kLanes, inner, kScratchElements / std::max<int64_t>(1, block)}));
  const int64_t groups = (inner + width - 1) / width;
  const int64_t run = std::max<int64_t>(
      1, std::min(count, std::max(kRunWindows, kRunBlocks * block / a.stride + 1)));
  const int64_t runs = (count + run - 1) / run;
  const int64_t span = a.stride > n / run ? n : run * a.stride;  // input positions a run reads
  const int64_t bytes = (span * int64_t{sizeof(In)} + run * int64_t{sizeof(Out)}) * width;
  std::atomic<bool> failed{false};
  for_each_block(
      e.outer * groups * runs, bytes,
      [&](int64_t begin, int64_t end) {
        std::unique_ptr<A[]> scratch(new (std::nothrow) A[2 * block * width + 1]);
        if (!scratch) {
          failed.store(true);
          return;
        }
        for (int64_t item = begin; item < end; ++item) {
          const int64_t o = item / (groups * runs), g = item / runs % groups, r = item % runs;
          const int64_t j0 = g * width, w = std::min(width, inner - j0);
          const int64_t c0 = r * run, c1 = std::min(count, c0 + run);
          LineFolds<In, A, Combine, Load> line{
              x + o * n * inner + j0,       inner, w, n, block, combine, load, scratch.get(),
              scratch.get() + block * width};
          slide_windows(line, a, c0, c1, y + (o * count + c0) * inner + j0, inner, identity, emit);
        }
      },
      (span + run) * width);
  return !failed.load();
}

// The value that leaves every element unchanged under `body`, nullopt for other bodies.
template <class A>
std::optional<A> identity_of(FastBody body) {
  using L = std::numeric_limits<A>;
  switch (body) {
    case FastBody::kAdd:
      return A(0);  // +0 and -0 both compare equal; the last combine with init fixes the sign
    case FastBody::kMultiply:
      return A(1);
    case FastBody::kMaximum:
      return L::has_infinity ? -L::infinity() : L::lowest();
    case FastBody::kMinimum:
      return L::has_infinity ? L::infinity() : L::max();
    default:
      return std::nullopt;
  }
}

// The windowed axes in the order the passes take them: last first (so maximum / minimum keep
// the walk's row-major choice), or first first over a reversed shape, whose first axis is the
// walk's last; the last axis when no axis is windowed.
std::vector<size_t> pass_order(const WindowGeometry& g, const Shape& input, bool reversed) {
  std::vector<size_t> axes;
  for (size_t k = input.size(); k-- > 0;) {
    if (!g.axes[k].untouched(input[k])) axes.push_back(k);
  }
  if (axes.empty()) axes.push_back(input.size() - 1);
  if (reversed) std::reverse(axes.begin(), axes.end());
  return axes;
}

template <DType D>
std::optional<Tensor> slide(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                            FastBody body, bool reversed) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  if constexpr (kIsComplex<T> || D == DType::kPred) {
    return std::nullopt;
  } else {
    T init_value;
    std::memcpy(&init_value, to_host(init).data(), sizeof(T));
    const A start = load(init_value);
    const std::optional<A> identity = identity_of<A>(body);
    if (!identity || !(start == *identity)) return std::nullopt;
    const std::vector<size_t> axes = pass_order(g, input.shape(), reversed);
    const A fold_start = body == FastBody::kAdd ? A(-*identity) : *identity;
    Tensor result = Tensor::allocate(D, g.result_shape, Order::kRowMajor);
    with_combiner<D>(body, [&](auto combine) {
      const auto from_input = [](T v) { return load(v); };
      const auto as_is = [](A v) { return v; };
      // The walk folds init first: combining it once more gives the walk's sign of a zero sum.
      const auto to_result = [start, combine](A v) { return store<T>(combine(start, v)); };
      Shape shape = input.shape();
      std::unique_ptr<A[]> held;  // the previous pass's output
      bool ok = true;
      for (size_t i = 0; i < axes.size() && ok; ++i) {
        const AxisExtent e = axis_extent(shape, axes[i]);
        const WindowAxis& a = g.axes[axes[i]];
        shape[axes[i]] = a.count;
        const bool first = i == 0, last = i + 1 == axes.size();
        std::unique_ptr<A[]> next(last ? nullptr : new A[checked_numel(shape)]);
        T* y = static_cast<T*>(result.data());
        if (first && last) {
          ok = slide_axis(static_cast<const T*>(input.data()), y, e, a, *identity, fold_start,
                          combine, from_input, to_result);
        } else if (first) {
          ok = slide_axis(static_cast<const T*>(input.data()), next.get(), e, a, *identity,
                          fold_start, combine, from_input, as_is);
        } else if (last) {
          ok = slide_axis(held.get(), y, e, a, *identity, fold_start, combine, as_is, to_result);
        } else {
          ok = slide_axis(held.get(), next.get(), e, a, *identity, fold_start, combine, as_is,
                          as_is);
        }
        held = std::move(next);
      }
      if (!ok) throw std::bad_alloc();
    });
    return result;
  }
}

// `input` dense row-major; `reversed`: its axes are the walk's in reverse order.
std::optional<Tensor> slide_dense(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                                  FastBody body, bool reversed) {
  // An empty input leaves only padding (the walk writes the init); its axes may be longer
  // than any real line.
  if (input.shape().empty() || input.numel() == 0) return std::nullopt;
  for (const WindowAxis& a : g.axes) {
    if (a.base != 1 || a.dilation != 1) return std::nullopt;
  }
  return dispatch(input.dtype(), [&](auto tag) {
    return slide<decltype(tag)::value>(input, init, g, body, reversed);
  });
}

}  // namespace

std::optional<Tensor> window_slide(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                                   FastBody body) {
  return slide_dense(input, init, g, body, false);
}

std::optional<Tensor> window_slide_column_major(const Tensor& input, const Tensor& init,
                                                const WindowGeometry& g, FastBody body) {
  if (!input.is_contiguous(Order::kColumnMajor) || input.is_contiguous(Order::kRowMajor)) {
    return std::nullopt;
  }
  WindowGeometry reversed = g;
  std::reverse(reversed.result_shape.begin(), reversed.result_shape.end());
  std::reverse(reversed.window_shape.begin(), reversed.window_shape.end());
  std::reverse(reversed.axes.begin(), reversed.axes.end());
  std::optional<Tensor> slid = slide_dense(input.reversed_axes(), init, reversed, body, true);
  if (!slid) return std::nullopt;
  return slid->reversed_axes();
}

}  // namespace ndbuf::program
