// stablehlo.reduce with a recognised associative body, at memory speed.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Reduces host tensor `input` (any strides) over `dimensions` with `body` (add, multiply,
// maximum, minimum, and, or; checked against the dtype by the caller), folding in
// `init` (0-d, the input's dtype) once per result element. The order of the folds is left to
// the implementation, as the spec allows: rows are split into lanes and chunks that run on
// all cores. f16 / bf16 accumulate in f32 and round once.
Tensor reduce_associative(const Tensor& input, const Tensor& init,
                          const std::vector<int64_t>& dimensions, const Shape& result_shape,
                          FastBody body);

}  // namespace ndbuf::program
