// One pass along the scanned axis, in chunks of the contiguous inner dims, parallel over
// (outer index, chunk) pairs.
#include "program/ops/reduction/window_scan.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/axis_extent.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/fast_combine.hpp"

namespace ndbuf::program {
namespace {

constexpr int64_t kChunk = 512;  // inner elements scanned together (accumulators on the stack)

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
