// Dense row-major copies of buffers that programs read by rows (an R matrix is column-major):
// the copy is made the second time a run asks for it, kept with the buffer and freed with it.
#include "r_layout_copy.h"

#include "ndbuf/memory/transfer.hpp"
#include "r_tensor.h"

namespace pjrt {
namespace {

// Larger buffers are read as they are: the copy would double their memory.
constexpr size_t kMaxCopyBytes = size_t{256} << 20;

// The runs that ask for a copy before one is made: a buffer read once (a batch of data) costs
// no copy; one read again (weights, an embedding table) is likely read many times.
constexpr int kRequestsBeforeCopy = 2;

}  // namespace

const ndbuf::Tensor& argument_tensor(SEXP buffer, bool read_by_rows) {
  BufferHolder& holder = unwrap_buffer_holder(buffer);
  const ndbuf::Tensor& tensor = holder.tensor;
  if (!read_by_rows || !ndbuf::is_host(tensor.device()) ||
      tensor.is_contiguous(ndbuf::Order::kRowMajor)) {
    return tensor;
  }
  if (holder.row_major) return *holder.row_major;
  if (++holder.row_major_requests < kRequestsBeforeCopy || tensor.nbytes() > kMaxCopyBytes) {
    return tensor;
  }
  holder.row_major = ndbuf::make_dense(tensor, ndbuf::Order::kRowMajor);
  return *holder.row_major;
}

size_t row_major_copy_bytes(SEXP buffer) {
  const BufferHolder* holder = find_buffer_holder(buffer);
  return holder == nullptr || !holder->row_major ? 0 : holder->row_major->nbytes();
}

}  // namespace pjrt

// The bytes of a buffer's row-major copy, 0 when it has none (tests).
[[cpp11::register]] SEXP ffi_buffer_row_major_copy_bytes(SEXP buffer) {
  return pjrt::call_core([&] { return static_cast<double>(pjrt::row_major_copy_bytes(buffer)); });
}
