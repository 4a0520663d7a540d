// stablehlo.select_and_scatter: scatter `source` onto the element each window selects.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"
#include "program/ops/reduction/reduce_window.hpp"

namespace ndbuf::program {

// For every window of `operand` (window_dimensions, window_strides, padding of `window`;
// dilations must be empty or 1) the selected element is found by folding the window's
// in-bounds elements in row-major order with `select` (keep the current pick while
// select(pick, next) is true); padding is never selected and a window with no element selects
// nothing. The result (shape of operand, dtype of init_value) starts as init_value and each
// source value is combined into its selected position with `scatter(result, source)`, in
// row-major order of source. `select_fast` / `scatter_fast` replace the regions when set.
Tensor select_and_scatter(const Tensor& operand, const Tensor& source, const Tensor& init_value,
                          const WindowConfig& window, const RegionFn& select,
                          const RegionFn& scatter, FastComparator select_fast = {},
                          FastBody scatter_fast = FastBody::kNone);

}  // namespace ndbuf::program
