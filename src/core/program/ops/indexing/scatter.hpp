// stablehlo.scatter: combine update windows into copies of the inputs at scatter indices.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// scatter's dimension numbers, named as in the spec. The hints indices_are_sorted and
// unique_indices (attributes of the op) have no effect on results and are not passed.
struct ScatterDimensions {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
};

// Results are copies of `inputs` into which every update window is combined element by element,
// r = update_computation(r_0..r_N-1, u_0..u_N-1): scatter positions in row-major order, each
// window in row-major order (the order only matters for duplicate indices).
// A window that does not lie entirely inside the inputs is skipped (as XLA does).
// `fast` (one input) replaces update_computation, which may then be empty.
std::vector<Tensor> scatter(const std::vector<Tensor>& inputs, const Tensor& scatter_indices,
                            const std::vector<Tensor>& updates, const ScatterDimensions& dims,
                            const RegionFn& update_computation, FastBody fast = FastBody::kNone);

}  // namespace ndbuf::program
