// Buffers that programs read by rows (an R matrix is column-major) are stored again dense
// row-major (r_layout_copy.cpp).
#pragma once

#include <cpp11.hpp>

#include "ndbuf/memory/tensor.hpp"

namespace pjrt {

// The tensor a run passes for the PJRTBuffer `buffer`. When the program reads it by rows
// (`read_by_rows`, ndbuf::program::row_major_arguments) and it is host memory in another
// layout, the second such run re-lays the buffer out: its tensor becomes a dense row-major copy
// of the same values and the old storage is released (kept only by views made before), so
// every later run reads it dense and the buffer's memory does not grow. Not for buffers over
// 256 MiB. Errors as unwrap_buffer().
const ndbuf::Tensor& argument_tensor(SEXP buffer, bool read_by_rows);

}  // namespace pjrt
