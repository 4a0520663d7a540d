// Dense row-major copies of buffers that programs read by rows (r_layout_copy.cpp).
#pragma once

#include <cpp11.hpp>

#include "ndbuf/memory/tensor.hpp"

namespace pjrt {

// The tensor a run passes for the PJRTBuffer `buffer`: when the program reads it by rows
// (`read_by_rows`, ndbuf::program::row_major_arguments) and it is host memory in another
// layout, its dense row-major copy from the second such run on (made then, kept with the
// buffer; not for buffers over 256 MiB); the buffer's own tensor otherwise. Errors as
// unwrap_buffer().
const ndbuf::Tensor& argument_tensor(SEXP buffer, bool read_by_rows);

// The bytes of the buffer's row-major copy; 0 when it has none or is not a live buffer.
size_t row_major_copy_bytes(SEXP buffer);

}  // namespace pjrt
