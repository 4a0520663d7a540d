// Structural kernels: data movement without arithmetic. Inputs are host tensors of any
// strides; results are new dense row-major host tensors. Shapes are StableHLO's (dim 0 first).
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/result_memory.hpp"

namespace ndbuf::program {

using Dims = std::vector<int64_t>;

Tensor iota(DType dtype, const Shape& shape, int64_t dimension);
Tensor reshape(const Tensor& x, const Shape& shape);
// Result axis dims[k] takes input axis k (size 1 input axes broadcast).
Tensor broadcast_in_dim(const Tensor& x, const Shape& shape, const Dims& dims);
// Result axis k is input axis perm[k].
Tensor transpose(const Tensor& x, const Dims& perm);
Tensor slice(const Tensor& x, const Dims& start, const Dims& limit, const Dims& stride);
// Start indices are clamped to [0, dim - size] per the StableHLO spec.
Tensor dynamic_slice(const Tensor& x, Dims start, const Dims& sizes);
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, Dims start,
                            ResultMemory& memory);
Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, Dims start);
Tensor concatenate(const std::vector<Tensor>& xs, int64_t dimension);
// Negative low / high padding removes elements; interior padding goes between elements.
Tensor pad(const Tensor& x, const Tensor& value, const Dims& low, const Dims& high,
           const Dims& interior);
Tensor reverse(const Tensor& x, const Dims& dims);

// A dense row-major copy of the view of x's memory at element `offset` (relative to x's first
// element) with `shape` and `strides` (in elements, may be zero or negative).
Tensor copy_view(const Tensor& x, int64_t offset, const Shape& shape, const Strides& strides);
// Copies `src` into the view of `dst` (dense row-major) starting at `start` with `steps`.
void write_window(Tensor& dst, const Tensor& src, const Dims& start, const Dims& steps);

}  // namespace ndbuf::program
