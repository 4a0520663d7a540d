// stablehlo.gather: per batch position one clamped start, then the slice copied as runs that
// are consecutive in operand and result, blocks of positions on the available threads. Row
// gathers take gather_rows.cpp's copies.
#include "program/ops/indexing/gather.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/indexing/gather_rows.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "gather";

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The operand dims a slice keeps (neither collapsed nor batching), in order.
std::vector<int64_t> kept_operand_dims(size_t rank, const GatherDimensions& dims) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (!contains(dims.collapsed_slice_dims, d) && !contains(dims.operand_batching_dims, d)) {
      kept.push_back(d);
    }
  }
  return kept;
}

// The dims of start_indices other than index_vector_dim (the batch dims), in order.
std::vector<int64_t> index_batch_dims(size_t rank, int64_t index_vector_dim) {
  std::vector<int64_t> batch;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (d != index_vector_dim) batch.push_back(d);
  }
  return batch;
}

void check_operand_side(const Shape& operand, const Shape& indices, const GatherDimensions& dims,
                        const std::vector<int64_t>& slice_sizes) {
  const size_t rank = operand.size();
  if (slice_sizes.size() != rank) kernel_error(kOp, "slice_sizes needs one size per operand dim.");
  for (size_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand[d]) {
      kernel_error(kOp, "slice size " + std::to_string(slice_sizes[d]) + " of dimension " +
                            std::to_string(d) + " is outside [0, " + std::to_string(operand[d]) +
                            "].");
    }
  }
  std::vector<int64_t> removed = dims.collapsed_slice_dims;
  removed.insert(removed.end(), dims.operand_batching_dims.begin(),
                 dims.operand_batching_dims.end());
  check_axes(removed, rank, kOp, "collapsed or operand batching dimension");
  for (int64_t d : removed) {
    if (slice_sizes[d] > 1) kernel_error(kOp, "a collapsed or batching dim needs slice size <= 1.");
  }
  check_axes(dims.start_index_map, rank, kOp, "start_index_map entry");
  const bool vector_dim_inside = dims.index_vector_dim < static_cast<int64_t>(indices.size());
  const int64_t index_length = vector_dim_inside ? indices[dims.index_vector_dim] : 1;
  if (static_cast<int64_t>(dims.start_index_map.size()) != index_length) {
    kernel_error(kOp, "start_index_map has " + std::to_string(dims.start_index_map.size()) +
                          " entries for index vectors of length " + std::to_string(index_length) +
                          ".");
  }
}

void check_index_side(const Shape& operand, const Shape& indices, const GatherDimensions& dims) {
  if (dims.index_vector_dim < 0 || dims.index_vector_dim > static_cast<int64_t>(indices.size())) {
    kernel_error(kOp, "index_vector_dim " + std::to_string(dims.index_vector_dim) +
                          " is outside [0, " + std::to_string(indices.size()) + "].");
  }
  check_axes(dims.start_indices_batching_dims, indices.size(), kOp, "start indices batching dim");
  if (dims.start_indices_batching_dims.size() != dims.operand_batching_dims.size()) {
    kernel_error(kOp, "operand and start indices list different numbers of batching dims.");
  }
  for (size_t i = 0; i < dims.operand_batching_dims.size(); ++i) {
    const int64_t d_start = dims.start_indices_batching_dims[i];
    if (d_start == dims.index_vector_dim ||
        indices[d_start] != operand[dims.operand_batching_dims[i]]) {
      kernel_error(kOp, "batching dims of operand and start indices must match in size.");
    }
  }
}

}  // namespace

Shape gather_shape(const Shape& operand_shape, const Shape& indices_shape,
                   const GatherDimensions& dims, const std::vector<int64_t>& slice_sizes) {
  check_index_side(operand_shape, indices_shape, dims);
  check_operand_side(operand_shape, indices_shape, dims, slice_sizes);
  const std::vector<int64_t> kept = kept_operand_dims(operand_shape.size(), dims);
  const std::vector<int64_t> batch = index_batch_dims(indices_shape.size(), dims.index_vector_dim);
  const size_t rank = batch.size() + kept.size();
  if (dims.offset_dims.size() != kept.size() ||
      !std::is_sorted(dims.offset_dims.begin(), dims.offset_dims.end())) {
    kernel_error(kOp, "offset_dims must list one sorted result dim per kept slice dim.");
  }
  check_axes(dims.offset_dims, rank, kOp, "offset dim");
  Shape shape;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
    if (contains(dims.offset_dims, d)) {
      shape.push_back(slice_sizes[kept[next_offset++]]);
    } else {
      shape.push_back(indices_shape[batch[next_batch++]]);
    }
  }
  return shape;
}

namespace {

// The slice elements (row-major over the kept dims) as runs that are consecutive in both the
// operand and the result: a run of `length` elements starts at `in` in the operand and `out` in
// the result, relative to the slice's start.
struct SliceRun {
  int64_t in, out, length;
};
struct SliceRuns {
  std::vector<SliceRun> runs;
  int64_t elements = 0;
};

SliceRuns slice_runs(const std::vector<int64_t>& kept, const std::vector<int64_t>& sizes,
                     const std::vector<int64_t>& offset_dims, const Strides& op_strides,
                     const Strides& out_strides) {
  Shape slice_shape;
  for (int64_t d : kept) slice_shape.push_back(sizes[d]);
  const int64_t slice_count = checked_numel(slice_shape);
  SliceRuns slice{{}, slice_count};
  std::vector<SliceRun>& runs = slice.runs;
  std::vector<int64_t> at(kept.size(), 0);
  for (int64_t s = 0; s < slice_count; ++s, next_index(at, slice_shape)) {
    int64_t in = 0, out = 0;
    for (size_t j = 0; j < kept.size(); ++j) {
      in += at[j] * op_strides[kept[j]];
      out += at[j] * out_strides[offset_dims[j]];
    }
    if (!runs.empty() && runs.back().in + runs.back().length == in &&
        runs.back().out + runs.back().length == out) {
      ++runs.back().length;
    } else {
      runs.push_back({in, out, 1});
    }
  }
  return slice;
}

// What the walk over batch positions needs: the dense inputs, their strides and the batch dims.
struct GatherWalk {
  const Tensor& operand;
  const Tensor& indices;
  const GatherDimensions& dims;
  const std::vector<int64_t>& slice_sizes;
  Strides op_strides, ix_strides, out_strides;
  std::vector<int64_t> batch;           // the batch dims of the indices
  std::vector<int64_t> batch_out_dims;  // the result dims they map to
  int64_t vector_step = 0;              // stride between the entries of one index vector
};

// Where the slice of batch position `b` starts in the operand: each start index clamped so the
// slice fits, plus the batching dims' positions.
int64_t operand_start(const GatherWalk& w, const std::vector<int64_t>& b, int64_t ix_base) {
  int64_t in_base = 0;
  for (size_t i = 0; i < w.dims.start_index_map.size(); ++i) {
    const int64_t d = w.dims.start_index_map[i];
    const int64_t start =
        read_index(w.indices.data(), w.indices.dtype(), ix_base + i * w.vector_step);
    in_base +=
        std::clamp<int64_t>(start, 0, w.operand.shape()[d] - w.slice_sizes[d]) * w.op_strides[d];
  }
  for (size_t i = 0; i < w.dims.operand_batching_dims.size(); ++i) {
    const auto pos =
        std::find(w.batch.begin(), w.batch.end(), w.dims.start_indices_batching_dims[i]);
    in_base += b[pos - w.batch.begin()] * w.op_strides[w.dims.operand_batching_dims[i]];
  }
  return in_base;
}

// Copies every slice into `result`, a block of batch positions per thread.
void copy_slices(const GatherWalk& w, const SliceRuns& slice, Tensor& result) {
  Shape batch_shape;
  for (int64_t d : w.batch) batch_shape.push_back(w.indices.shape()[d]);
  const int64_t positions = checked_numel(batch_shape);
  const char* in = static_cast<const char*>(w.operand.data());
  char* out = static_cast<char*>(result.data());
  const size_t cell_bytes = itemsize(w.operand.dtype());
  with_cell(cell_bytes, [&](auto cell) {
    using Cell = decltype(cell);
    const auto* from = reinterpret_cast<const Cell*>(in);
    auto* to = reinterpret_cast<Cell*>(out);
    const auto bytes = static_cast<int64_t>(2 * sizeof(Cell)) * slice.elements;
    for_each_block(
        positions, bytes,
        [&](int64_t begin, int64_t end) {
          std::vector<int64_t> b = multi_index(begin, batch_shape);
          for (int64_t p = begin; p < end; ++p, next_index(b, batch_shape)) {
            int64_t ix_base = 0, out_base = 0;
            for (size_t j = 0; j < w.batch.size(); ++j) {
              ix_base += b[j] * w.ix_strides[w.batch[j]];
              out_base += b[j] * w.out_strides[w.batch_out_dims[j]];
            }
            const int64_t in_base = operand_start(w, b, ix_base);
            for (const SliceRun& run : slice.runs) {
              if (run.length == 1) {
                to[out_base + run.out] = from[in_base + run.in];
              } else {
                std::memcpy(to + out_base + run.out, from + in_base + run.in,
                            sizeof(Cell) * static_cast<size_t>(run.length));
              }
            }
          }
        },
        slice.elements);
  });
}

}  // namespace

void check_collapsed_slices(const GatherDimensions& dims, const std::vector<int64_t>& slice_sizes,
                            const Shape& result_shape) {
  if (checked_numel(result_shape) == 0) return;
  for (int64_t d : dims.collapsed_slice_dims) {
    if (slice_sizes[static_cast<size_t>(d)] == 0) {
      kernel_error(kOp, "collapsed dimension " + std::to_string(d) +
                            " has slice size 0, so its slices have no element to read.");
    }
  }
}

Tensor gather(const Tensor& operand_in, const Tensor& indices_in, const GatherDimensions& dims,
              const std::vector<int64_t>& slice_sizes) {
  const Shape shape = gather_shape(operand_in.shape(), indices_in.shape(), dims, slice_sizes);
  check_collapsed_slices(dims, slice_sizes, shape);
  if (checked_numel(shape) == 0)
    return Tensor::allocate(operand_in.dtype(), shape, Order::kRowMajor);
  // Read through its own strides: a column-major table (an R matrix) is not copied whole to
  // gather a few of its rows.
  const Tensor operand = to_host(operand_in);
  const Tensor indices = dense_host(indices_in);
  if (std::optional<Tensor> rows = gather_rows(operand, indices, dims, slice_sizes, shape)) {
    return std::move(*rows);
  }
  Tensor result = Tensor::allocate(operand_in.dtype(), shape, Order::kRowMajor);
  GatherWalk walk{operand,
                  indices,
                  dims,
                  slice_sizes,
                  operand.strides(),
                  row_major_strides(indices.shape()),
                  row_major_strides(shape),
                  index_batch_dims(indices.rank(), dims.index_vector_dim),
                  {},
                  0};
  const std::vector<int64_t> kept = kept_operand_dims(operand.rank(), dims);
  const SliceRuns slice =
      slice_runs(kept, slice_sizes, dims.offset_dims, walk.op_strides, walk.out_strides);
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (!contains(dims.offset_dims, d)) walk.batch_out_dims.push_back(d);
  }
  const bool vector_dim_inside = dims.index_vector_dim < static_cast<int64_t>(indices.rank());
  walk.vector_step = vector_dim_inside ? walk.ix_strides[dims.index_vector_dim] : 0;
  copy_slices(walk, slice, result);
  return result;
}

}  // namespace ndbuf::program
