// Buffers that programs read by rows are stored again dense row-major at the second run that
// asks (r_layout_copy.h).
#include "r_layout_copy.h"

#include "ndbuf/memory/transfer.hpp"
#include "r_tensor.h"

namespace pjrt {
namespace {

// Larger buffers are read as they are: the copy would need their size again while it is made.
constexpr size_t kMaxCopyBytes = size_t{256} << 20;

// The runs that ask before the buffer is re-laid out: a buffer read once (a batch of data) is
// not copied; one read again (weights, an embedding table) is likely read many times.
constexpr int kRequestsBeforeCopy = 2;

}  // namespace

const ndbuf::Tensor& argument_tensor(SEXP buffer, bool read_by_rows) {
  BufferHolder& holder = unwrap_buffer_holder(buffer);
  const ndbuf::Tensor& tensor = holder.tensor;
  if (!read_by_rows || !ndbuf::is_host(tensor.device()) ||
      tensor.is_contiguous(ndbuf::Order::kRowMajor)) {
    return tensor;
  }
  if (++holder.row_major_requests < kRequestsBeforeCopy || tensor.nbytes() > kMaxCopyBytes) {
    return tensor;
  }
  holder.tensor = ndbuf::make_dense(tensor, ndbuf::Order::kRowMajor);
  return holder.tensor;
}

}  // namespace pjrt

// Whether a buffer's values are stored dense row-major (tests of the re-layout).
[[cpp11::register]] SEXP ffi_buffer_stored_row_major(SEXP buffer) {
  return pjrt::call_core([&] {
    return Rf_ScalarLogical(pjrt::unwrap_buffer(buffer).is_contiguous(ndbuf::Order::kRowMajor));
  });
}
