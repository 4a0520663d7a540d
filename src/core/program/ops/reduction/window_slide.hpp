// General box windows of reduce_window (any size, stride and padding; no dilation) with an add,
// multiply, maximum or minimum body whose init is the body's identity, in O(n) whatever the
// window: van Herk / Gil-Werman along each windowed axis, one axis after the other.
#pragma once

#include <optional>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {

// reduce_window of dense `input` with 0-d `init` over geometry `g`, or nullopt when the sliding
// scheme does not apply: a body other than add / multiply / maximum / minimum, a pred or complex
// dtype, an init that is not the body's identity (padding, which reads the init, must add
// nothing), a window or base dilation, a 0-d or empty input. Maximum and minimum give the window
// walk's bits (NaN and signed-zero ties included); sums and products fold in another order (the
// spec leaves the order to the implementation) with the walk's accuracy, integers wrapping exactly.
// `fuse_passes` false makes two windowed axes' passes through a whole intermediate tensor, as
// they were before span_pair() (window_slide.cpp) folded them in blocks: the tests compare both.
std::optional<Tensor> window_slide(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                                   FastBody body, bool fuse_passes = true);

// window_slide() of a dense column-major `input` (an R array) with no transposing copy: that
// memory is the row-major tensor of the reversed shape, slid there with the passes in the walk's
// order, so the bits are window_slide()'s; the result is column-major. nullopt where
// window_slide() declines, or `input` is not column-major (or is also row-major).
std::optional<Tensor> window_slide_column_major(const Tensor& input, const Tensor& init,
                                                const WindowGeometry& g, FastBody body);

}  // namespace ndbuf::program
