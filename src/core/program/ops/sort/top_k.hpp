// chlo.top_k: the k largest elements along the last dimension, with their indices.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// Returns {values, indices}: the k largest elements of each last-dim row in descending order
// (floats in total order, so +NaN ranks first and -NaN last) and their i32 positions; equal
// values keep the lower index first. Needs rank >= 1, 0 <= k <= last dim, a real dtype.
std::vector<Tensor> top_k(const Tensor& operand, int64_t k);

// The shape of both results (the operand's, with the last dim k); throws ndbuf::Error where
// top_k() would refuse the operand or k.
Shape top_k_shape(const Shape& operand, DType dtype, int64_t k);

}  // namespace ndbuf::program
