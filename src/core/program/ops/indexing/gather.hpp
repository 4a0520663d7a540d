// stablehlo.gather: slices of an operand at start indices.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// gather's dimension numbers, named as in the spec. The hint indices_are_sorted (an attribute
// of the op) has no effect on results and is not passed.
struct GatherDimensions {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
};

// The result shape the spec gives for these attributes (throws ndbuf::Error when they are
// inconsistent with the operand and index shapes).
Shape gather_shape(const Shape& operand_shape, const Shape& indices_shape,
                   const GatherDimensions& dims, const std::vector<int64_t>& slice_sizes);

// A gather with elements to produce cannot collapse a dim whose slice size is 0: the spec would
// read an element that does not exist. Throws ndbuf::Error saying so; all of it is static, so
// the type rule calls it as well as the kernel.
void check_collapsed_slices(const GatherDimensions& dims, const std::vector<int64_t>& slice_sizes,
                            const Shape& result_shape);

// Start indices (any integer dtype) are clamped so every slice lies inside the operand.
Tensor gather(const Tensor& operand, const Tensor& start_indices, const GatherDimensions& dims,
              const std::vector<int64_t>& slice_sizes);

}  // namespace ndbuf::program
