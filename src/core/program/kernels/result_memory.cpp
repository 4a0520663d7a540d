// Result memory chosen by a kernel's caller (result_memory.hpp).
#include "program/kernels/result_memory.hpp"

namespace ndbuf::program {

std::optional<Tensor> ResultMemory::take_offered(DType dtype, const Shape& shape, Order order) {
  if (!offered_) return std::nullopt;
  std::optional<Tensor> memory = std::move(offered_);
  offered_.reset();
  if (memory->dtype() != dtype || memory->shape() != shape) return std::nullopt;
  // Every kernel's result is dense row-major (the reductions' summation order follows the
  // layout they read, and fused and plain runs must agree), except a fused loop's that only
  // the caller reads (FusedPlan::any_layout): memory laid out otherwise is not written over.
  if (!memory->is_contiguous(order)) return std::nullopt;
  return memory;
}

Tensor ResultMemory::take(DType dtype, const Shape& shape) {
  if (scratch_ != nullptr) return scratch_->take(dtype, shape);
  if (std::optional<Tensor> offered = take_offered(dtype, shape)) return *offered;
  return Tensor::allocate(dtype, shape, Order::kRowMajor);
}

}  // namespace ndbuf::program
