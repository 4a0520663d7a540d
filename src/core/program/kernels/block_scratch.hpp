// Scratch memory for fused blocks. A fused op runs its members' kernels on block-sized views,
// thousands of times per call; allocating each block's results from the heap makes glibc hand
// the memory back and fault it in again every block (its trim threshold), which costs more
// than the arithmetic. While a pool is installed on a thread, the element-wise kernels take
// their results from it: a few block-sized buffers, each reused once no tensor holds it.
#pragma once

#include <memory>
#include <vector>

#include "ndbuf/memory/storage.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

class BlockScratch {
 public:
  explicit BlockScratch(size_t buffer_bytes) : buffer_bytes_(buffer_bytes) {}
  // A dense row-major tensor in a free buffer, or a fresh allocation when it does not fit.
  Tensor take(DType dtype, const Shape& shape);

 private:
  size_t buffer_bytes_;
  std::vector<std::shared_ptr<Storage>> buffers_;
};

// Installs `scratch` for the calling thread until the scope ends.
class BlockScratchScope {
 public:
  explicit BlockScratchScope(BlockScratch* scratch);
  ~BlockScratchScope();
  BlockScratchScope(const BlockScratchScope&) = delete;
  BlockScratchScope& operator=(const BlockScratchScope&) = delete;

 private:
  BlockScratch* previous_;
};

// The index of the calling thread in the current parallel loop (0 outside one).
int current_thread_index();

// The result tensor of an element-wise kernel: from the installed scratch, else allocated.
Tensor allocate_result(DType dtype, const Shape& shape);

}  // namespace ndbuf::program
