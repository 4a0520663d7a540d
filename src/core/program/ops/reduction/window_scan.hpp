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

// reduce_window of dense `input` with 0-d `init` and a recognised `body` over scan geometry, or
// nullopt when folding the padding could change a value (init OP init != init bitwise): then
// only the window walk gives the spec's result. A forward scan folds each window in the walk's
// order, so results are bit-identical to it; a reverse one folds from the end of the axis.
std::optional<Tensor> window_scan(const Tensor& input, const Tensor& init, ScanAxis scan,
                                  FastBody body);

}  // namespace ndbuf::program
