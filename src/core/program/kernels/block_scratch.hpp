// Scratch memory for element-program tiles. A step without a loop of its own in
// ElementTile (element_program.hpp) calls its element-wise kernel on tile-sized views,
// thousands of times per fused call; allocating each tile's result from the heap makes glibc
// hand the memory back and fault it in again every tile (its trim threshold), which costs
// more than the arithmetic. While a pool is installed on a thread, the element-wise kernels
// take their results from it: a few tile-sized buffers, each reused once no tensor holds it.
#pragma once

#include <memory>
#include <optional>
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

// Memory offered to one op: the interpreter offers a value that the run holds alone (a donated
// input of execute(), program.hpp, or a value of the program read for the last time) to the
// op that reads it last, so that the op writes its result there instead of allocating. Only
// consumers whose every output element is computed from the inputs' elements at the same
// position take it: allocate_result() below (the element-wise kernels), fused ops that read it
// only in place (fused_run.cpp), and dynamic_update_slice when it is the operand being updated
// (structure_compose.cpp). The offer is for the calling thread, until the scope ends or the
// first take_offered_memory().
class OfferedMemoryScope {
 public:
  // `memory`: the input as a dense row-major tensor of the op's result type.
  explicit OfferedMemoryScope(Tensor memory);
  ~OfferedMemoryScope();
  OfferedMemoryScope(const OfferedMemoryScope&) = delete;
  OfferedMemoryScope& operator=(const OfferedMemoryScope&) = delete;

 private:
  friend std::optional<Tensor> take_offered_memory(DType dtype, const Shape& shape);
  std::optional<Tensor> memory_;
  OfferedMemoryScope* previous_;
};

// The offered memory when it matches `dtype` and `shape`, else nullopt. Every call withdraws
// the offer, so only an op's first allocation can take it.
std::optional<Tensor> take_offered_memory(DType dtype, const Shape& shape);

// The result tensor of an element-wise kernel: from the installed scratch, else the offered
// memory, else allocated (on the current device).
Tensor allocate_result(DType dtype, const Shape& shape);

}  // namespace ndbuf::program
