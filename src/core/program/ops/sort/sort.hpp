// stablehlo.sort: N operands sorted together along one dimension by a comparator.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Sorts every 1-d slice along `dimension` (0 <= dimension < rank) of all `inputs` (one shape)
// by one permutation: element a goes before b when comparator(a_0, b_0, a_1, b_1, ...) is true.
// Always stable (is_stable is honoured by being stable anyway), and safe for any comparator:
// one that is not a strict weak order gives some permutation, never a crash. `fast` replaces
// the comparator (which may then be empty) when it only compares the first operand.
std::vector<Tensor> sort(const std::vector<Tensor>& inputs, int64_t dimension, bool is_stable,
                         const RegionFn& comparator, FastComparator fast = {});

// The operands of a sort along `dimension` (checked to be one of their axes) read densely,
// and fresh row-major results of their shapes: what both sort paths start from.
struct SortOperands {
  std::vector<Tensor> dense, results;
};
SortOperands sort_operands(const std::vector<Tensor>& inputs, int64_t dimension);

}  // namespace ndbuf::program
