// gather of whole rows (embedding lookups, X[idx, ]): each batch position takes one slab of the
// operand along its first dim, whole, and the result lists the slabs after the batch dims.
#pragma once

#include <optional>

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/indexing/gather.hpp"

namespace ndbuf::program {

// When `dims` and `slice_sizes` describe a row gather of `operand` (one start index, mapped to
// dim 0, which is collapsed; every other dim taken whole; no batching dims; the offset dims
// trailing), the result, copied a row or a column at a time on the available threads; nothing
// otherwise. Rows of a row-major operand are copied whole into a row-major result. A
// column-major operand (an R matrix) is read one column at a time, a column being what the
// cache holds, into a column-major result, which is also the layout R reads back without a
// transpose. `indices` must be dense row-major.
std::optional<Tensor> gather_rows(const Tensor& operand, const Tensor& indices,
                                  const GatherDimensions& dims,
                                  const std::vector<int64_t>& slice_sizes, const Shape& shape);

}  // namespace ndbuf::program
