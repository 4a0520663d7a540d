// select_and_scatter with a recognised select comparison and scatter body, many windows at
// once: the trailing dims no window touches are lanes every window treats alike (the channels
// of a max-pool over NHWC images), so a window folds all its lanes together, on vector lanes;
// the leading dims no window touches (the images) are slabs whose windows pick only their own
// elements, so slabs run in parallel, each picking and scattering in the walk's order.
#pragma once

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {

// select_and_scatter() of dense row-major `operand` and `source` (undilated windows `g`) whose
// select region is `select` (not kNone) and scatter region `scatter` (not kNone), operand,
// source and `init` all of one dtype, windows of at most INT32_MAX elements: the same picks and the
// same result bits, the source values combined into each position in row-major window order.
Tensor select_and_scatter_lanes(const Tensor& operand, const Tensor& source, const Tensor& init,
                                const WindowGeometry& g, FastComparator select, FastBody scatter);

}  // namespace ndbuf::program
