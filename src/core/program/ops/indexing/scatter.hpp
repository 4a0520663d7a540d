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

// A scatter's dims sorted by role, after checking the spec's constraints between the shapes
// and the dimension numbers (C2, C4, C8 to C22; errors name the op): what the kernel's loops
// read, and what the type rule checks before planning.
struct ScatterPlan {
  std::vector<int64_t> window_input_dims;    // input dim of each update window dim
  std::vector<int64_t> scatter_update_dims;  // update dims that are not window dims
  std::vector<int64_t> index_batch_dims;     // scatter_indices dims except index_vector_dim
  Shape window_extent;                       // per input dim: window size (1 if inserted)
};
ScatterPlan plan_scatter(const Shape& input, const Shape& indices, const Shape& updates,
                         const ScatterDimensions& dims);

// Results are copies of `inputs` into which every update window is combined element by element,
// r = update_computation(r_0..r_N-1, u_0..u_N-1): scatter positions in row-major order, each
// window in row-major order (the order only matters for duplicate indices).
// A window that does not lie entirely inside the inputs is skipped (as XLA does).
// `fast` (one input) replaces update_computation, which may then be empty.
std::vector<Tensor> scatter(const std::vector<Tensor>& inputs, const Tensor& scatter_indices,
                            const std::vector<Tensor>& updates, const ScatterDimensions& dims,
                            const RegionFn& update_computation, FastBody fast = FastBody::kNone);

}  // namespace ndbuf::program
