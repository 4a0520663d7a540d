// stablehlo.reduce with a body compiled into an element program (argmax's and argmin's
// value-and-index bodies, any other element-wise body).
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/element/element_program.hpp"

namespace ndbuf::program {

// What reduce() computes with a region `body` (reduce.hpp): each result element folds its
// input elements in row-major order from the init values, acc = body(acc..., x...), so the
// bits are the interpreter's. The program runs over tiles of result elements at once, in
// parallel, reading the inputs through their strides.
std::vector<Tensor> reduce_program(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& init_values,
                                   const std::vector<int64_t>& dimensions,
                                   const ElementProgram& body);

}  // namespace ndbuf::program
