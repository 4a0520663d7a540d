// Scratch buffers for element-program tiles (block_scratch.hpp).
#include "program/kernels/block_scratch.hpp"

#include "ndbuf/base/shape.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf::program {

Tensor BlockScratch::take(DType dtype, const Shape& shape) {
  const size_t nbytes = static_cast<size_t>(checked_numel(shape)) * itemsize(dtype);
  if (nbytes > buffer_bytes_) return Tensor::allocate(dtype, shape, Order::kRowMajor);
  std::shared_ptr<Storage> free_buffer;
  for (const auto& buffer : buffers_) {
    if (buffer.use_count() == 1) {
      free_buffer = buffer;
      break;
    }
  }
  if (!free_buffer) {
    free_buffer = allocate_host(buffer_bytes_, Device{});
    buffers_.push_back(free_buffer);
  }
  return Tensor::dense(std::move(free_buffer), dtype, shape, Order::kRowMajor);
}

int current_thread_index() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

}  // namespace ndbuf::program
