// Scratch memory for element-program tiles. A step without a loop of its own in
// ElementTile (element_program.hpp) calls its element-wise kernel on tile-sized views,
// thousands of times per fused call; allocating each tile's result from the heap makes glibc
// hand the memory back and fault it in again every tile (its trim threshold), which costs
// more than the arithmetic. The tile hands its kernels a pool (through ResultMemory,
// result_memory.hpp): a few tile-sized buffers, each reused once no tensor holds it.
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

// The index of the calling thread in the current parallel loop (0 outside one).
int current_thread_index();

}  // namespace ndbuf::program
