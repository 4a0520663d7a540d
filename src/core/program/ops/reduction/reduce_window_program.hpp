// stablehlo.reduce_window with a body compiled into an element program (any element-wise body
// that is not one of the recognised folds: tanh(a) + b, a running logsumexp, ...).
#pragma once

#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/element/element_program.hpp"
#include "program/ops/reduction/reduce_window.hpp"

namespace ndbuf::program {

// What reduce_window() computes with a region body: each result element folds its window in
// row-major window order from the init values, acc = body(acc..., x...), padding and dilation
// holes reading the init values, so the bits are the interpreter's. The program runs over
// tiles of result elements at once, in parallel.
std::vector<Tensor> reduce_window_program(const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& init_values,
                                          const WindowConfig& window, const ElementProgram& body);

}  // namespace ndbuf::program
