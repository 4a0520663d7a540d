// Row gathers: the row of every batch position is read once (clamped as the spec clamps start
// indices), then the rows are copied in whichever order the operand's layout streams.
#include "program/ops/indexing/gather_rows.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "memory/element_cell.hpp"
#include "memory/stream_store.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/exec/loop_layout.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/indexing/index_dims.hpp"

namespace ndbuf::program {
namespace {

bool is_row_gather(const Shape& operand, size_t result_rank, const GatherDimensions& dims,
                   const std::vector<int64_t>& slice_sizes) {
  if (operand.empty() || !dims.operand_batching_dims.empty()) return false;
  if (dims.start_index_map != std::vector<int64_t>{0}) return false;
  if (dims.collapsed_slice_dims != std::vector<int64_t>{0} || slice_sizes[0] != 1) return false;
  for (size_t d = 1; d < operand.size(); ++d) {
    if (slice_sizes[d] != operand[d]) return false;
  }
  const size_t batch_rank = result_rank - (operand.size() - 1);
  for (size_t j = 0; j < dims.offset_dims.size(); ++j) {
    if (dims.offset_dims[j] != static_cast<int64_t>(batch_rank + j)) return false;
  }
  return true;
}

// The operand row each batch position reads, positions in row-major order of the batch dims
// (the indices' own order: each position's index vector has one entry).
std::vector<int64_t> clamped_rows(const Tensor& indices, int64_t positions, int64_t row_count) {
  std::vector<int64_t> rows(static_cast<size_t>(positions));
  for (int64_t p = 0; p < positions; ++p) {
    rows[p] = std::clamp<int64_t>(read_index(indices.data(), indices.dtype(), p), 0, row_count - 1);
  }
  return rows;
}

// The same rows with the positions in column-major order of the batch dims.
std::vector<int64_t> column_major_order(const std::vector<int64_t>& rows, const Shape& batch) {
  Shape reversed(batch.rbegin(), batch.rend());
  const Strides row_major = row_major_strides(batch);
  std::vector<int64_t> at(batch.size(), 0), ordered(rows.size());
  for (size_t q = 0; q < rows.size(); ++q, next_index(at, reversed)) {
    int64_t p = 0;
    for (size_t j = 0; j < at.size(); ++j) p += at[j] * row_major[batch.size() - 1 - j];
    ordered[q] = rows[p];
  }
  return ordered;
}

// Dims 1.. of `t` dense in row-major order (dim 0 may have any stride): one group of stride 1,
// or of size 1.
bool rows_contiguous(const Tensor& t) {
  std::vector<int64_t> dims(t.rank() - 1);
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d + 1);
  const int64_t stride = group_stride(t, dims);
  return stride == 0 || stride == 1;
}

// Each row starts with a cache miss the hardware prefetcher cannot foresee (the rows are
// random); asking for the row kRowsAhead positions on while copying this one overlaps those
// misses. Rows are prefetched up to 4 KiB: past that the prefetcher follows the row itself.
constexpr int64_t kRowsAhead = 8;
constexpr size_t kPrefetchedRowBytes = 4096;
// Row gathers write their result around the caches from 4 MiB, not from kStreamedResultBytes:
// the rows come from all over a table, so the lines a plain store would bring in compete with
// the table's for the cache. An embedding lookup of 8192 random rows of a 50000 x 256 f32
// table (an 8 MiB result), 2 threads, in a loop: 0.77-0.86 ms a call with plain stores and no
// prefetch, 0.53-0.58 streamed and prefetched. Below 4 MiB (twice the largest second-level
// cache of a current x86 core) plain stores leave the result where its next reader finds it.
constexpr int64_t kStreamedGatherBytes = int64_t{4} << 20;

void prefetch_row(const void* row, size_t bytes) {
  const auto* at = static_cast<const char*>(row);
  for (size_t k = 0; k < std::min(bytes, kPrefetchedRowBytes); k += 64) __builtin_prefetch(at + k);
}

template <class Cell>
void copy_whole_rows(const Tensor& operand, const std::vector<int64_t>& rows, int64_t width,
                     Tensor& result) {
  const auto* in = static_cast<const Cell*>(operand.data());
  auto* out = static_cast<Cell*>(result.data());
  const int64_t row_stride = operand.strides()[0];
  const size_t row_bytes = sizeof(Cell) * width;
  const bool stream = result.nbytes() >= kStreamedGatherBytes;
  for_each_block(
      static_cast<int64_t>(rows.size()), static_cast<int64_t>(2 * row_bytes),
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          if (p + kRowsAhead < end) prefetch_row(in + rows[p + kRowsAhead] * row_stride, row_bytes);
          if (stream) {
            stream_copy(out + p * width, in + rows[p] * row_stride, row_bytes);
          } else {
            std::memcpy(out + p * width, in + rows[p] * row_stride, row_bytes);
          }
        }
        if (stream) stream_fence();
      },
      width);
}

// The positions in the order of the rows they read (stable): walking a column in that order
// reads it front to back, so the hardware prefetches it, instead of one cache miss per element.
struct SortedReads {
  std::vector<int64_t> rows;       // ascending
  std::vector<int64_t> positions;  // the result position each read goes to
};

SortedReads sorted_reads(const std::vector<int64_t>& rows) {
  std::vector<int64_t> order(rows.size());
  for (size_t p = 0; p < order.size(); ++p) order[p] = static_cast<int64_t>(p);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return rows[a] < rows[b]; });
  SortedReads reads{std::vector<int64_t>(rows.size()), std::move(order)};
  for (size_t q = 0; q < rows.size(); ++q) reads.rows[q] = rows[reads.positions[q]];
  return reads;
}

template <class Cell>
void copy_by_columns(const Tensor& operand, const std::vector<int64_t>& rows, int64_t width,
                     Tensor& result) {
  const auto* in = static_cast<const Cell*>(operand.data());
  auto* out = static_cast<Cell*>(result.data());
  const int64_t row_count = operand.shape()[0];
  const auto positions = static_cast<int64_t>(rows.size());
  const SortedReads reads = sorted_reads(rows);
  const auto bytes = static_cast<int64_t>(2 * sizeof(Cell)) * positions;
  for_each_block(
      width, bytes,
      [&](int64_t begin, int64_t end) {
        for (int64_t j = begin; j < end; ++j) {
          const Cell* column = in + j * row_count;
          Cell* target = out + j * positions;
          for (int64_t q = 0; q < positions; ++q) {
            target[reads.positions[q]] = column[reads.rows[q]];
          }
        }
      },
      positions);
}

}  // namespace

bool gather_reads_whole_rows(const Op& op) {
  if (op.operands.size() != 2 || op.result_types.size() != 1) return false;
  const Shape& operand = op.operand_types[0].shape;
  return is_row_gather(operand, op.result_types[0].shape.size(), gather_dimensions(op),
                       attr_ints(op, "slice_sizes"));
}

std::optional<Tensor> gather_rows(const Tensor& operand, const Tensor& indices,
                                  const GatherDimensions& dims,
                                  const std::vector<int64_t>& slice_sizes, const Shape& shape) {
  if (!is_row_gather(operand.shape(), shape.size(), dims, slice_sizes)) return std::nullopt;
  const bool by_rows = rows_contiguous(operand);
  if (!by_rows && !operand.is_contiguous(Order::kColumnMajor)) return std::nullopt;
  const size_t batch_rank = shape.size() - (operand.rank() - 1);
  const Shape batch(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(batch_rank));
  const int64_t positions = checked_numel(batch);
  const int64_t width = operand.numel() / operand.shape()[0];
  std::vector<int64_t> rows = clamped_rows(indices, positions, operand.shape()[0]);
  Tensor result =
      Tensor::allocate(operand.dtype(), shape, by_rows ? Order::kRowMajor : Order::kColumnMajor);
  with_cell(itemsize(operand.dtype()), [&](auto cell) {
    using Cell = decltype(cell);
    if (by_rows) {
      copy_whole_rows<Cell>(operand, rows, width, result);
    } else {
      copy_by_columns<Cell>(operand, column_major_order(rows, batch), width, result);
    }
  });
  return result;
}

}  // namespace ndbuf::program
