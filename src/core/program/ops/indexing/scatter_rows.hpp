// scatter of whole rows (segment sums): one scatter position dim, each window the trailing
// elements of the row-major result that follow its start, combined by a fast body.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Position q's index vector starts at element q * index_stride of the dense row-major
// indices, its components component_stride apart; component i moves the window start by
// component_strides[i] result elements and must lie in [0, component_limits[i]] for the window
// to be combined (otherwise the position is skipped). Window element k of position q is
// updates[q * update_position_stride + k * update_element_stride] (updates' own strides), and
// combines into result[start + k], k < row_length.
struct RowScatter {
  int64_t positions = 0;
  int64_t index_stride = 0;
  int64_t component_stride = 0;
  std::vector<int64_t> component_strides;
  std::vector<int64_t> component_limits;
  int64_t row_length = 0;
  int64_t update_position_stride = 0;
  int64_t update_element_stride = 0;
};

// Combines every update row into `result` (dense row-major, of the updates' dtype), positions
// in order for each element: the bits of scatter's row-major walk. `indices` must be dense
// row-major i32 or i64; `body` must pass check_fast_body() for the dtype.
void scatter_rows(Tensor& result, const Tensor& indices, const Tensor& updates,
                  const RowScatter& rows, FastBody body);

}  // namespace ndbuf::program
