// Where a kernel's result memory comes from, chosen by its caller and handed to it: a tile
// of an element program gives its scratch buffers, the interpreter the memory of a value the
// run holds alone, everyone else a fresh allocation. Nothing is found in thread-locals, so a
// kernel called from anywhere (a worker thread, another backend) sees only what it is given.
#pragma once

#include <optional>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/block_scratch.hpp"

namespace ndbuf::program {

class ResultMemory {
 public:
  // Fresh allocations on the current device.
  ResultMemory() = default;
  // Tile-sized buffers of `scratch` (element programs: the kernels run thousands of times per
  // call on tile-sized views, and the heap would hand each result's pages back and fault
  // them in again).
  explicit ResultMemory(BlockScratch* scratch) : scratch_(scratch) {}
  // Memory offered to one op (a donated input of execute(), or a value of the program read
  // for the last time): only consumers whose every output element is computed from the
  // inputs' elements at the same position take it (the element-wise kernels, fused steps that
  // read it only in place, dynamic_update_slice when it is the operand being updated).
  // `memory`: the input as a dense row-major tensor of the op's result type.
  explicit ResultMemory(Tensor offered) : offered_(std::move(offered)) {}

  // A dense row-major result: a scratch buffer, else the offered memory when it fits, else a
  // fresh allocation.
  Tensor take(DType dtype, const Shape& shape);
  // The offered memory when it matches `dtype` and `shape` and is dense in `order`, else
  // nullopt. Every call withdraws the offer, so only an op's first allocation can take it.
  std::optional<Tensor> take_offered(DType dtype, const Shape& shape,
                                     Order order = Order::kRowMajor);

 private:
  BlockScratch* scratch_ = nullptr;
  std::optional<Tensor> offered_;
};

}  // namespace ndbuf::program
