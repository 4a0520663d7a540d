// One pass along the scanned axis, in chunks of the contiguous inner dims, parallel over
// (outer index, chunk) pairs. Lines along a contiguous axis are folded kLanes at a time, so that
// their chains of dependent operations overlap; a long line of sums is cut into chunks folded
// side by side (window_scan.hpp says what that does to the order).
#include "program/ops/reduction/window_scan.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/axis_extent.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/fast_combine.hpp"

namespace ndbuf::program {
namespace {

constexpr int64_t kChunk = 512;  // inner elements scanned together (accumulators on the stack)
// Lines (or chunks of a line) folded together: one combine's latency is several cycles, and the
// processor retires two or more a cycle, so a lone line ran at a fraction of its speed (a sum of
// 10^6 f32 took 0.9 ms, one add latency per element).
constexpr int64_t kLanes = 8;

// One line of n elements `step` apart, the running value in a register. A maximum or minimum
// of real values passes over, by a branch, each element that leaves it as it is (v < a: the
// maximum of a and v is a; a < v for the minimum), so the loop is no chain of dependent
// operations while the running value rarely changes.
template <class T, class A, class Combine>
void scan_line(const T* x, T* y, int64_t step, int64_t n, A a, FastBody body, Combine combine) {
  if constexpr (std::is_arithmetic_v<A>) {
    if (body == FastBody::kMaximum) {
      for (int64_t k = 0; k < n; ++k) {
        const A v = load(x[k * step]);
        if (!(v < a)) a = combine(a, v);
        y[k * step] = store<T>(a);
      }
      return;
    }
    if (body == FastBody::kMinimum) {
      for (int64_t k = 0; k < n; ++k) {
        const A v = load(x[k * step]);
        if (!(a < v)) a = combine(a, v);
        y[k * step] = store<T>(a);
      }
      return;
    }
  }
  for (int64_t k = 0; k < n; ++k) {
    a = combine(a, load(x[k * step]));
    y[k * step] = store<T>(a);
  }
}

// kLanes lines of n elements folded together, each from its own `acc`: line l's element k is
// x[l * gap + k * kStep]; each running value is written to y at the same place when kWrite.
// Each line is folded in its own order, one element after another. The direction is a constant,
// and so is the gap where it can be (a std::integral_constant), so that the lines' addresses are
// one index plus constant offsets.
template <bool kWrite, int64_t kStep, class T, class A, class Gap, class Combine>
void fold_lanes(const T* x, T* y, Gap gap, int64_t n, A (&acc)[kLanes], Combine combine) {
  for (int64_t k = 0; k < n; ++k) {
#pragma GCC unroll 8
    for (int64_t l = 0; l < kLanes; ++l) {
      const int64_t at = l * static_cast<int64_t>(gap) + k * kStep;
      acc[l] = combine(acc[l], load(x[at]));
      if constexpr (kWrite) y[at] = store<T>(acc[l]);
    }
  }
}

// `lines` lines of n elements (line i starts at x + i * n, elements kStep apart from there),
// kLanes at a time: bit-identical to folding each alone.
template <int64_t kStep, class T, class A, class Combine>
void scan_lines(const T* x, T* y, int64_t n, int64_t lines, A start, FastBody body,
                Combine combine) {
  const int64_t groups = lines / kLanes;
  for_each_block(
      groups + lines % kLanes, 2 * static_cast<int64_t>(sizeof(T)) * n * kLanes,
      [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          if (g >= groups) {
            const int64_t line = groups * kLanes + (g - groups);
            scan_line(x + line * n, y + line * n, kStep, n, start, body, combine);
            continue;
          }
          A acc[kLanes];
          std::fill(acc, acc + kLanes, start);
          fold_lanes<true, kStep>(x + g * kLanes * n, y + g * kLanes * n, n, n, acc, combine);
        }
      },
      n * kLanes);
}

// A long line of sums, n elements kStep apart, in chunks (window_scan.hpp).
template <int64_t kStep, class T, class A, class Combine>
void scan_long_line(const T* x, T* y, int64_t n, A start, FastBody body, Combine combine) {
  const int64_t chunks = (n + kScanChunk - 1) / kScanChunk;
  const int64_t groups = (chunks - 1) / kLanes;  // whole groups of full chunks
  constexpr int64_t kChunkStride = kScanChunk * kStep;
  constexpr int64_t kGroupStride = kLanes * kChunkStride;
  const std::integral_constant<int64_t, kChunkStride> gap;
  // The bytes a group's scan reads and writes; its totals only read them, but are bound by the
  // adds as much as the scan, so both passes ask for threads with this count.
  const int64_t bytes_per_group = 2 * static_cast<int64_t>(sizeof(T)) * kLanes * kScanChunk;
  std::vector<A> totals(static_cast<size_t>(chunks));
  for_each_block(
      groups, bytes_per_group,
      [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          const T* first = x + g * kGroupStride;
          A acc[kLanes];
          for (int64_t l = 0; l < kLanes; ++l) acc[l] = load(first[l * kChunkStride]);
          fold_lanes<false, kStep>(first + kStep, static_cast<T*>(nullptr), gap, kScanChunk - 1,
                                   acc, combine);
          std::copy(acc, acc + kLanes, totals.begin() + g * kLanes);
        }
      },
      kLanes * kScanChunk);
  for (int64_t c = groups * kLanes; c + 1 < chunks; ++c) {
    A total = load(x[c * kChunkStride]);
    for (int64_t k = 1; k < kScanChunk; ++k) {
      total = combine(total, load(x[c * kChunkStride + k * kStep]));
    }
    totals[static_cast<size_t>(c)] = total;
  }
  std::vector<A> offsets(static_cast<size_t>(chunks));
  offsets[0] = start;
  for (size_t c = 1; c < offsets.size(); ++c) offsets[c] = combine(offsets[c - 1], totals[c - 1]);
  for_each_block(
      groups, bytes_per_group,
      [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          A acc[kLanes];
          std::copy(offsets.begin() + g * kLanes, offsets.begin() + (g + 1) * kLanes, acc);
          fold_lanes<true, kStep>(x + g * kGroupStride, y + g * kGroupStride, gap, kScanChunk, acc,
                                  combine);
        }
      },
      kLanes * kScanChunk);
  for (int64_t c = groups * kLanes; c < chunks; ++c) {
    scan_line(x + c * kChunkStride, y + c * kChunkStride, kStep,
              std::min(kScanChunk, n - c * kScanChunk), offsets[static_cast<size_t>(c)], body,
              combine);
  }
}

// Lines along a contiguous axis (e.inner == 1) of sums or products.
template <class T, class A, class Combine>
void scan_contiguous_lines(const T* x, T* y, const AxisExtent& e, bool reverse, A start,
                           FastBody body, Combine combine) {
  const auto scan_in = [&](auto direction) {
    constexpr int64_t kStep = decltype(direction)::value;
    const int64_t first = kStep < 0 ? e.length - 1 : 0;
    if (body == FastBody::kAdd && e.length >= kLongScan) {
      for (int64_t o = 0; o < e.outer; ++o) {
        scan_long_line<kStep>(x + o * e.length + first, y + o * e.length + first, e.length, start,
                              body, combine);
      }
    } else {
      scan_lines<kStep>(x + first, y + first, e.length, e.outer, start, body, combine);
    }
  };
  if (reverse) {
    scan_in(std::integral_constant<int64_t, -1>{});
  } else {
    scan_in(std::integral_constant<int64_t, 1>{});
  }
}

template <DType D>
std::optional<Tensor> scan(const Tensor& input, const Tensor& init, ScanAxis s, FastBody body) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  T init_value;
  std::memcpy(&init_value, to_host(init).data(), sizeof(T));
  const A start = load(init_value);
  std::optional<Tensor> out;
  with_combiner<D>(body, [&](auto combine) {
    const A padded = combine(start, start);
    if (std::memcmp(&padded, &start, sizeof(A)) != 0) return;
    const AxisExtent e = axis_extent(input.shape(), s.axis);
    Tensor result = Tensor::allocate(D, input.shape(), Order::kRowMajor);
    const T* x = static_cast<const T*>(input.data());
    T* y = static_cast<T*>(result.data());
    if constexpr (std::is_arithmetic_v<A>) {
      if (e.inner == 1 && (body == FastBody::kAdd || body == FastBody::kMultiply)) {
        scan_contiguous_lines(x, y, e, s.reverse, start, body, combine);
        out = std::move(result);
        return;
      }
    }
    const int64_t chunks = (e.inner + kChunk - 1) / kChunk;
    const int64_t bytes_per_item =
        2 * static_cast<int64_t>(sizeof(T)) * e.length * std::min(e.inner, kChunk);
    for_each_block(
        e.outer * chunks, bytes_per_item,
        [&](int64_t begin, int64_t end) {
          A acc[kChunk];
          for (int64_t item = begin; item < end; ++item) {
            const int64_t o = item / chunks;
            const int64_t j0 = (item % chunks) * kChunk;
            const int64_t width = std::min(kChunk, e.inner - j0);
            if (width == 1) {
              const int64_t first = o * e.length * e.inner + j0;
              if (s.reverse) {
                scan_line(x + first + (e.length - 1) * e.inner,
                          y + first + (e.length - 1) * e.inner, -e.inner, e.length, start, body,
                          combine);
              } else {
                scan_line(x + first, y + first, e.inner, e.length, start, body, combine);
              }
              continue;
            }
            std::fill(acc, acc + width, start);
            for (int64_t step = 0; step < e.length; ++step) {
              const int64_t t = s.reverse ? e.length - 1 - step : step;
              const int64_t at = (o * e.length + t) * e.inner + j0;
              for (int64_t j = 0; j < width; ++j) {
                acc[j] = combine(acc[j], load(x[at + j]));
                y[at + j] = store<T>(acc[j]);
              }
            }
          }
        },
        e.length * std::min(e.inner, kChunk));
    out = std::move(result);
  });
  return out;
}

}  // namespace

std::optional<ScanAxis> scan_axis(const WindowGeometry& g, const Shape& input) {
  std::optional<ScanAxis> found;
  for (size_t k = 0; k < g.axes.size(); ++k) {
    const WindowAxis& a = g.axes[k];
    const int64_t n = input[k];
    if (a.untouched(n)) continue;
    const bool scan_shaped = !found && n > 1 && a.stride == 1 && a.base == 1 && a.dilation == 1 &&
                             a.size >= n && a.count == n;
    if (!scan_shaped) return std::nullopt;
    if (a.low == a.size - 1) {
      found = ScanAxis{k, false};
    } else if (a.low == 0) {
      found = ScanAxis{k, true};  // count == n puts the padding, size - 1, at the high end
    } else {
      return std::nullopt;
    }
  }
  return found;
}

std::optional<Tensor> window_scan(const Tensor& input, const Tensor& init, ScanAxis scan_axis,
                                  FastBody body) {
  return dispatch(input.dtype(), [&](auto tag) {
    return scan<decltype(tag)::value>(input, init, scan_axis, body);
  });
}

}  // namespace ndbuf::program
