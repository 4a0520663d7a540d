// reduce of a (value, index) pair over one dimension with a body recognise_arg_pick() read
// (argmax, argmin): a native loop over lanes of result elements instead of the element program.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/reduction/arg_body.hpp"

namespace ndbuf::program {

// Whether reduce_arg_pick() takes values of `value` and indices of `index`: f32, f64, i32 or
// i64 values, i32 or i64 indices.
bool arg_pick_supported(DType value, DType index);

// Folds `values` and `indices` (one shape) over `dimension`, element by element in order from
// the init values, keeping what `table` says the body keeps: the bits of the body's own fold in
// row-major order. Results are row-major: the kept values, then the kept indices.
std::vector<Tensor> reduce_arg_pick(const Tensor& values, const Tensor& indices,
                                    const Tensor& init_value, const Tensor& init_index,
                                    int64_t dimension, const ArgPickTable& table);

}  // namespace ndbuf::program
