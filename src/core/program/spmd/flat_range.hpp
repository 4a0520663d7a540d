// Elements [begin, end) of a dense row-major tensor as a 1-d view of its memory: the ranges a
// collective splits its operand into (the shared-out all_reduce's, the MPI ring's chunks).
#pragma once

#include <cstdint>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

inline Tensor flat_range(const Tensor& dense, int64_t begin, int64_t end) {
  return Tensor(dense.storage(), dense.dtype(), {end - begin}, {1}, dense.offset() + begin);
}

}  // namespace ndbuf::program
