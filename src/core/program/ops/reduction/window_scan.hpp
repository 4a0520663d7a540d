// Scans: the reduce_window shapes JAX lowers cumsum, cumprod, cummax and cummin to (one axis
// with a window at least its length, stride 1, padding (window - 1, 0), or (0, window - 1)
// reversed; every other axis untouched) run as one pass along the axis, O(n) instead of the
// O(n * window) of walking every window.
#pragma once

#include <optional>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {

struct ScanAxis {
  size_t axis = 0;
  bool reverse = false;  // suffix scan: result i folds elements i .. n - 1
};

// The scanned axis when `g` (over `input`) has the scan shape, nullopt otherwise.
std::optional<ScanAxis> scan_axis(const WindowGeometry& g, const Shape& input);

// A line of sums along a contiguous axis at least kLongScan long is folded in chunks of
// kScanChunk elements: each chunk's total (its elements folded in order from its first), the
// running sum of those totals from init (each chunk's offset), then each chunk's elements folded
// in order from its offset. Chunks fold side by side and in parallel, where one running sum
// waits for each add in turn (a cumulative sum of 10^6 f32 took 0.9 ms that way); the spec
// leaves the order within a window to the implementation. Floating-point results then differ
// from a left-to-right fold by rounding (an error bound of the same order, chunk length plus
// chunk count additions, against the line's length); integer ones do not. The chunks are fixed,
// so the results do not depend on the thread count. The chunk is no multiple of 256 elements:
// eight f32 chunks folded side by side 2 KiB apart made loads alias the addresses of earlier
// stores modulo 4 KiB, and the fold ran 30% slower.
inline constexpr int64_t kScanChunk = 528;
inline constexpr int64_t kLongScan = 16 * kScanChunk;

// reduce_window of dense `input` with 0-d `init` and a recognised `body` over scan geometry, or
// nullopt when folding the padding could change a value (init OP init != init bitwise): then
// only the window walk gives the spec's result. A forward scan folds each window in the walk's
// order, so results are bit-identical to it (long lines of sums aside, above); a reverse one
// folds from the end of the axis.
std::optional<Tensor> window_scan(const Tensor& input, const Tensor& init, ScanAxis scan,
                                  FastBody body);

}  // namespace ndbuf::program
