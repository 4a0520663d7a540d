// stablehlo.map with a body compiled into an element program.
#pragma once

#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/element/element_program.hpp"

namespace ndbuf::program {

// out[i] = body(inputs_0[i], ..., inputs_N-1[i]) over inputs of one shape; a dense row-major
// result of dtype `result`. Runs over tiles of elements in parallel.
Tensor map_program(const std::vector<Tensor>& inputs, DType result, const ElementProgram& body);

}  // namespace ndbuf::program
