// Scratch buffers for fused blocks (block_scratch.hpp).
#include "program/kernels/block_scratch.hpp"

#include "ndbuf/base/shape.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf::program {
namespace {

thread_local BlockScratch* t_scratch = nullptr;

}  // namespace

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

BlockScratchScope::BlockScratchScope(BlockScratch* scratch) : previous_(t_scratch) {
  t_scratch = scratch;
}

BlockScratchScope::~BlockScratchScope() { t_scratch = previous_; }

int current_thread_index() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

Tensor allocate_result(DType dtype, const Shape& shape) {
  if (t_scratch != nullptr) return t_scratch->take(dtype, shape);
  return Tensor::allocate(dtype, shape, Order::kRowMajor);
}

}  // namespace ndbuf::program
