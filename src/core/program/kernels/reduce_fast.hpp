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

// Rows up to this length are folded by reduce_associative as one run each (no row is split into
// chunks), whatever the number of rows and threads.
constexpr int64_t kWholeRowFold = 8192;

// out[r] = init folded with row r of `rows` x `cols` dense row-major elements of `dtype`, with
// the same folds, in the same order, as reduce_associative over the last axis of such a tensor
// when cols < kWholeRowFold: fused loops reduce their rows with it and keep the unfused bits.
// `init` and `out` hold elements of `dtype`. False, with nothing written, for a body the dtype
// has no fold for.
bool fold_rows(FastBody body, DType dtype, const void* rows, int64_t count, int64_t cols,
               const void* init, void* out);

// The same for rows folded front to back, as reduce_associative folds the rows of a column-major
// tensor (the same bits for maximum and minimum, whatever its chunks): row r's element c at
// `first` + c * col_stride + r elements, the rows' folds side by side in vector lanes.
bool fold_columns(FastBody body, DType dtype, const void* first, int64_t count, int64_t cols,
                  int64_t col_stride, const void* init, void* out);

// Whether reduce_associative reads `input` reduced over `dimensions` in its column-major order
// (each result element folded front to back over its reduced elements).
bool reduces_in_column_order(const Tensor& input, const std::vector<int64_t>& dimensions);

}  // namespace ndbuf::program
