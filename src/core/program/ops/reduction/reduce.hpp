// stablehlo.reduce: N operands folded over some dimensions with N init values and a body.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Reduces `inputs` (one shape) over `dimensions` (distinct, in range). Result i has dtype of
// init_values[i] and the non-reduced dims of the inputs in order. Elements are folded in
// row-major order starting from the init values: acc = body(acc_0..acc_N-1, x_0..x_N-1).
// With `fast` != kNone (one operand whose dtype equals its init's) `body` is never called and
// may be empty; f16/bf16 then accumulate in f32 and round once, and the associative bodies
// (all but kReplace) fold in an order of the implementation's choosing (reduce_fast.hpp), as
// the spec allows.
std::vector<Tensor> reduce(const std::vector<Tensor>& inputs,
                           const std::vector<Tensor>& init_values,
                           const std::vector<int64_t>& dimensions, const RegionFn& body,
                           FastBody fast = FastBody::kNone);

}  // namespace ndbuf::program
