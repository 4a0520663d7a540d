// Scratch buffers for element-program tiles (block_scratch.hpp).
#include "program/kernels/block_scratch.hpp"

#include "ndbuf/base/shape.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf::program {
namespace {

thread_local BlockScratch* t_scratch = nullptr;
thread_local OfferedMemoryScope* t_offer = nullptr;

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

OfferedMemoryScope::OfferedMemoryScope(Tensor memory)
    : memory_(std::move(memory)), previous_(t_offer) {
  t_offer = this;
}

OfferedMemoryScope::~OfferedMemoryScope() { t_offer = previous_; }

std::optional<Tensor> take_offered_memory(DType dtype, const Shape& shape) {
  if (t_offer == nullptr || !t_offer->memory_) return std::nullopt;
  std::optional<Tensor> memory = std::move(t_offer->memory_);
  t_offer->memory_.reset();
  if (memory->dtype() != dtype || memory->shape() != shape) return std::nullopt;
  // Every kernel's result is dense row-major (the reductions' summation order follows the
  // layout they read, and fused and plain runs must agree): a donated buffer laid out
  // otherwise (an R matrix, column-major) is not written over.
  if (!memory->is_contiguous(Order::kRowMajor)) return std::nullopt;
  return memory;
}

Tensor allocate_result(DType dtype, const Shape& shape) {
  if (t_scratch != nullptr) return t_scratch->take(dtype, shape);
  if (std::optional<Tensor> offered = take_offered_memory(dtype, shape)) return *offered;
  return Tensor::allocate(dtype, shape, Order::kRowMajor);
}

}  // namespace ndbuf::program
