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
// row-major order. Two passes of small windows (2-d pooling) run together, the first pass's rows
// made into a ring as the second moves on (span_pair()).
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
#include "program/ops/reduction/window_line_folds.hpp"

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
// The ring of first-pass rows span_pair() keeps for the second pass, at most.
constexpr int64_t kPairScratchBytes = int64_t{64} << 10;

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

// Outputs [q0, q1) (at most kSpanChunk) of one line of small windows of stride 1: in a line the
// k-th elements of consecutive windows lie consecutively, so output q = c * inner + j reads
// input q + (k - low) * inner for every k whose element lies inside the axis (padding is the
// identity and adds nothing). `x` holds the line's inputs from index `x_origin` on, `y` its
// outputs. Each output folds its window in order k = 0, 1, ..., so maximum / minimum keep the
// walk's first NaN or extreme. Folds start from `start`, the body's identity (a sum's is -0,
// which keeps a sum of -0s negative).
template <class In, class Out, class A, class Combine, class Load, class Emit>
void span_chunk(const In* x, int64_t x_origin, Out* y, int64_t n, int64_t inner,
                const WindowAxis& a, int64_t q0, int64_t q1, A start, Combine combine, Load load,
                Emit emit, A* acc) {
#pragma omp simd
  for (int64_t q = 0; q < q1 - q0; ++q) acc[q] = start;
  for (int64_t k = 0; k < a.size; ++k) {
    const int64_t shift = (k - a.low) * inner - x_origin;
    const int64_t lo = std::max(q0, std::clamp<int64_t>(a.low - k, 0, a.count) * inner);
    const int64_t hi = std::min(q1, std::clamp<int64_t>(n + a.low - k, 0, a.count) * inner);
    if (hi > lo) fold_run(acc + (lo - q0), x + lo + shift, hi - lo, combine, load);
  }
#pragma omp simd
  for (int64_t q = q0; q < q1; ++q) y[q] = emit(acc[q - q0]);
}

// Every line of the axis of `e` (outer index o) through span_chunk(), in parallel by chunks.
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
          span_chunk(x + o * n * inner, 0, y + o * line, n, inner, a, q0,
                     std::min(line, q0 + kSpanChunk), start, combine, load, emit, acc);
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

// Two windowed axes, both of small windows of stride 1 (span_chunk()), the first pass along
// the later axis: see span_pair().
bool spans_a_pair(const WindowGeometry& g, const std::vector<size_t>& axes) {
  if (axes.size() != 2 || axes[0] <= axes[1]) return false;
  for (size_t axis : axes) {
    if (g.axes[axis].stride != 1 || g.axes[axis].size > kSpanWindowMax) return false;
  }
  return true;
}

// Both passes of spans_a_pair() at once, the second along `a0` and the first along `a1`: each
// row of the second pass's output (outer index o) folds `size` rows of the first pass's result,
// made as the rows move on into a ring of `size` rows that stays in the first-level cache,
// instead of through a whole intermediate tensor (a 3 x 3 max-pool of 16 x 64 x 64 x 32 f32
// wrote and read 8 MiB more). Work items are runs of output rows: each makes its first rows
// afresh, so runs are as long as parallelism allows. The same folds in the same order as two
// span_axis() passes, so the same bits. False when the ring would not fit kPairScratchBytes.
template <class T, class A, class Combine, class Load, class Emit>
bool span_pair(const T* x, T* y, const Shape& input, const WindowGeometry& g, size_t a0, size_t a1,
               A start, Combine combine, Load from_input, Emit to_result) {
  const WindowAxis &w0 = g.axes[a0], &w1 = g.axes[a1];
  const AxisExtent e0 = axis_extent(input, a0), e1 = axis_extent(input, a1);
  const int64_t mid = e0.inner / (e1.length * e1.inner);  // the dims between a0 and a1
  const int64_t line1 = w1.count * e1.inner, row = mid * line1;
  if (w0.size * row * int64_t{sizeof(A)} > kPairScratchBytes) return false;
  const int64_t runs = std::min(w0.count, (4 * int64_t{max_threads()} + e0.outer - 1) / e0.outer);
  const int64_t run = (w0.count + runs - 1) / runs;
  const auto as_is = [](A v) { return v; };
  // Row r of the first pass's result for outer index o, into `out`.
  const auto make_row = [&](int64_t o, int64_t r, A* out, A* acc) {
    for (int64_t m = 0; m < mid; ++m) {
      const T* xm = x + (o * e0.length + r) * e0.inner + m * e1.length * e1.inner;
      for (int64_t q0 = 0; q0 < line1; q0 += kSpanChunk) {
        span_chunk(xm, 0, out + m * line1, e1.length, e1.inner, w1, q0,
                   std::min(line1, q0 + kSpanChunk), start, combine, from_input, as_is, acc);
      }
    }
  };
  std::atomic<bool> failed{false};
  for_each_block(
      e0.outer * runs, run * (e0.inner + row) * int64_t{sizeof(T)},
      [&](int64_t begin, int64_t end) {
        std::unique_ptr<A[]> ring(new (std::nothrow) A[w0.size * row]);
        if (!ring) {
          failed.store(true);
          return;
        }
        A acc[kSpanChunk];
        for (int64_t item = begin; item < end; ++item) {
          const int64_t o = item / runs, c0 = item % runs * run;
          const int64_t c1 = std::min(w0.count, c0 + run);
          int64_t next = std::clamp<int64_t>(c0 - w0.low, 0, e0.length);  // first row not made
          for (int64_t c = c0; c < c1; ++c) {
            const int64_t need = std::clamp<int64_t>(c - w0.low + w0.size, 0, e0.length);
            for (; next < need; ++next) make_row(o, next, ring.get() + next % w0.size * row, acc);
            T* yc = y + (o * w0.count + c) * row;
            for (int64_t j0 = 0; j0 < row; j0 += kSpanChunk) {
              const int64_t m = std::min(kSpanChunk, row - j0);
#pragma omp simd
              for (int64_t q = 0; q < m; ++q) acc[q] = start;
              for (int64_t k = 0; k < w0.size; ++k) {
                const int64_t r = c + k - w0.low;
                if (r < 0 || r >= e0.length) continue;
                fold_run(acc, ring.get() + r % w0.size * row + j0, m, combine, as_is);
              }
#pragma omp simd
              for (int64_t q = 0; q < m; ++q) yc[j0 + q] = to_result(acc[q]);
            }
          }
        }
      },
      run * row * w0.size);
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

// Each windowed axis in turn (`axes`, pass_order()), through an intermediate tensor between
// passes: from `x` (loaded by `from_input`) into `y` (stored by `to_result`). False when memory
// ran out.
template <class T, class A, class Combine, class Load, class Emit>
bool slide_passes(const T* x, T* y, Shape shape, const WindowGeometry& g,
                  const std::vector<size_t>& axes, A identity, A fold_start, Combine combine,
                  Load from_input, Emit to_result) {
  const auto as_is = [](A v) { return v; };
  std::unique_ptr<A[]> held;  // the previous pass's output
  bool ok = true;
  for (size_t i = 0; i < axes.size() && ok; ++i) {
    const AxisExtent e = axis_extent(shape, axes[i]);
    const WindowAxis& a = g.axes[axes[i]];
    shape[axes[i]] = a.count;
    const bool first = i == 0, last = i + 1 == axes.size();
    std::unique_ptr<A[]> next(last ? nullptr : new A[checked_numel(shape)]);
    if (first && last) {
      ok = slide_axis(x, y, e, a, identity, fold_start, combine, from_input, to_result);
    } else if (first) {
      ok = slide_axis(x, next.get(), e, a, identity, fold_start, combine, from_input, as_is);
    } else if (last) {
      ok = slide_axis(held.get(), y, e, a, identity, fold_start, combine, as_is, to_result);
    } else {
      ok = slide_axis(held.get(), next.get(), e, a, identity, fold_start, combine, as_is, as_is);
    }
    held = std::move(next);
  }
  return ok;
}

template <DType D>
std::optional<Tensor> slide(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                            FastBody body, bool reversed, bool fuse_passes) {
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
      // The walk folds init first: combining it once more gives the walk's sign of a zero sum.
      const auto to_result = [start, combine](A v) { return store<T>(combine(start, v)); };
      const T* x = static_cast<const T*>(input.data());
      T* y = static_cast<T*>(result.data());
      if (fuse_passes && spans_a_pair(g, axes) &&
          span_pair(x, y, input.shape(), g, axes[1], axes[0], fold_start, combine, from_input,
                    to_result)) {
        return;
      }
      if (!slide_passes(x, y, input.shape(), g, axes, *identity, fold_start, combine, from_input,
                        to_result)) {
        throw std::bad_alloc();
      }
    });
    return result;
  }
}

// `input` dense row-major; `reversed`: its axes are the walk's in reverse order.
std::optional<Tensor> slide_dense(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                                  FastBody body, bool reversed, bool fuse_passes) {
  // An empty input leaves only padding (the walk writes the init); its axes may be longer
  // than any real line.
  if (input.shape().empty() || input.numel() == 0) return std::nullopt;
  for (const WindowAxis& a : g.axes) {
    if (a.base != 1 || a.dilation != 1) return std::nullopt;
  }
  return dispatch(input.dtype(), [&](auto tag) {
    return slide<decltype(tag)::value>(input, init, g, body, reversed, fuse_passes);
  });
}

}  // namespace

std::optional<Tensor> window_slide(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                                   FastBody body, bool fuse_passes) {
  return slide_dense(input, init, g, body, false, fuse_passes);
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
  std::optional<Tensor> slid = slide_dense(input.reversed_axes(), init, reversed, body, true, true);
  if (!slid) return std::nullopt;
  return slid->reversed_axes();
}

}  // namespace ndbuf::program
