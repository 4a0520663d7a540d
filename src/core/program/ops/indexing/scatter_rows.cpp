// Row scatters at memory speed: threads own column ranges of the result and walk the positions
// in order, a block at a time. A block's rows are found once per thread (no table of every
// position), and each position combines a group of up to eight neighbouring columns: one row
// lookup serves the group, and the group's elements are independent of each other, so their
// loads and stores overlap. Each element still combines its updates in position order.
#include "program/ops/indexing/scatter_rows.hpp"

#include <algorithm>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/fast_combine.hpp"

namespace ndbuf::program {
namespace {

constexpr int64_t kBlock = 2048;  // positions whose rows serve every column of a run

// The positions of [q0, q1) whose windows lie inside the result, in order: their result
// offsets in `at` and update offsets in `from`. Returns how many.
template <class I>
int64_t inside_rows(const I* indices, const RowScatter& rows, int64_t q0, int64_t q1, int64_t* at,
                    int64_t* from) {
  const auto components = static_cast<int64_t>(rows.component_strides.size());
  int64_t n = 0;
  for (int64_t q = q0; q < q1; ++q) {
    const I* vector = indices + q * rows.index_stride;
    int64_t offset = 0;
    bool inside = true;
    for (int64_t i = 0; i < components && inside; ++i) {
      const auto start = static_cast<int64_t>(vector[i * rows.component_stride]);
      inside = start >= 0 && start <= rows.component_limits[i];
      if (inside) offset += start * rows.component_strides[i];
    }
    at[n] = offset;
    from[n] = q * rows.update_position_stride;
    n += inside ? 1 : 0;
  }
  return n;
}

// K neighbouring columns of each of the n rows (r and u point at the group's first column);
// kStep is the updates' element stride when known here (1: row-major updates, vector code),
// else 0 and `step` is.
template <int K, int64_t kStep, class T, class Combine>
void combine_group(T* r, const T* u, int64_t step, const int64_t* at, const int64_t* from,
                   int64_t n, Combine combine) {
  const int64_t stride = kStep != 0 ? kStep : step;
  for (int64_t j = 0; j < n; ++j) {
    T* x = r + at[j];
    const T* y = u + from[j];
    Compute<T> v[K];  // read before any store: a store could otherwise alias a later read
#pragma GCC unroll 8
    for (int k = 0; k < K; ++k) v[k] = load(y[k * stride]);
#pragma GCC unroll 8
    for (int k = 0; k < K; ++k) x[k] = store<T>(combine(load(x[k]), v[k]));
  }
}

// Columns [c0, c1) of the n rows, in groups of 8, then 4, 2 and 1.
template <int64_t kStep, class T, class Combine>
void combine_columns(T* r, const T* u, int64_t step, int64_t c0, int64_t c1, const int64_t* at,
                     const int64_t* from, int64_t n, Combine combine) {
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    combine_group<8, kStep>(r + c, u + c * step, step, at, from, n, combine);
  }
  if (c + 4 <= c1) {
    combine_group<4, kStep>(r + c, u + c * step, step, at, from, n, combine);
    c += 4;
  }
  if (c + 2 <= c1) {
    combine_group<2, kStep>(r + c, u + c * step, step, at, from, n, combine);
    c += 2;
  }
  if (c < c1) combine_group<1, kStep>(r + c, u + c * step, step, at, from, n, combine);
}

// Columns per unit of the split among threads: whole cache lines of the result rows (two
// threads writing one line would pass it back and forth), at least a group of eight.
template <class T>
constexpr int64_t kColumnUnit = std::max<int64_t>(8, 64 / static_cast<int64_t>(sizeof(T)));

// The first column of run `run` of `runs`: whole units while there are enough.
template <class T>
int64_t column_bound(int64_t width, int64_t run, int64_t runs) {
  const int64_t units = (width + kColumnUnit<T> - 1) / kColumnUnit<T>;
  if (units < runs) return width * run / runs;
  return std::min(width, kColumnUnit<T> * (units * run / runs));
}

// Positions [p0, p1) into every column, the columns split into `runs` parallel ranges.
template <class T, class I, class Combine>
void scatter_chunk(T* r, const T* u, const I* indices, const RowScatter& rows, int64_t p0,
                   int64_t p1, int64_t runs, Combine combine) {
  const int64_t width = rows.row_length;
  const auto bytes_per_run = (p1 - p0) * (width / runs + 1) * 3 * static_cast<int64_t>(sizeof(T));
  for_each_block(
      runs, bytes_per_run,
      [&](int64_t begin, int64_t end) {
        std::vector<int64_t> at(kBlock), from(kBlock);
        for (int64_t run = begin; run < end; ++run) {
          const int64_t c0 = column_bound<T>(width, run, runs);
          const int64_t c1 = column_bound<T>(width, run + 1, runs);
          for (int64_t q0 = p0; q0 < p1; q0 += kBlock) {
            const int64_t n =
                inside_rows(indices, rows, q0, std::min(p1, q0 + kBlock), at.data(), from.data());
            const int64_t step = rows.update_element_stride;
            if (step == 1) {
              combine_columns<1>(r, u, step, c0, c1, at.data(), from.data(), n, combine);
            } else {
              combine_columns<0>(r, u, step, c0, c1, at.data(), from.data(), n, combine);
            }
          }
        }
      },
      kInterruptElements / runs);  // every run in one round: chunks are what polls interrupts
}

template <DType D, class I>
void scatter_typed(Tensor& result, const Tensor& indices, const Tensor& updates,
                   const RowScatter& rows, FastBody body) {
  using T = typename ElementType<D>::type;
  T* r = static_cast<T*>(result.data());
  const T* u = static_cast<const T*>(updates.data());
  const I* ix = static_cast<const I*>(indices.data());
  const int64_t width = rows.row_length;
  const int64_t chunk = std::max(kBlock, kInterruptElements / width);
  const int64_t bytes =
      std::min(chunk, rows.positions) * width * 3 * static_cast<int64_t>(sizeof(T));
  // Up to four runs per thread when the rows have the units for them: a thread the OS leaves
  // waiting holds back a smaller share.
  const int threads = threads_for(bytes);
  const int64_t units = (width + kColumnUnit<T> - 1) / kColumnUnit<T>;
  const int64_t runs = std::min<int64_t>(
      width,
      threads > 1 ? std::min<int64_t>(std::max<int64_t>(threads, units), int64_t{4} * threads) : 1);
  with_combiner<D>(body, [&](auto combine) {
    for (int64_t p0 = 0; p0 < rows.positions; p0 += chunk) {
      if (p0 > 0) check_interrupt();
      scatter_chunk(r, u, ix, rows, p0, std::min(rows.positions, p0 + chunk), runs, combine);
    }
  });
}

}  // namespace

void scatter_rows(Tensor& result, const Tensor& indices, const Tensor& updates,
                  const RowScatter& rows, FastBody body) {
  if (rows.positions == 0 || rows.row_length == 0) return;
  dispatch(result.dtype(), [&](auto tag) {
    if (indices.dtype() == DType::kI32) {
      scatter_typed<decltype(tag)::value, int32_t>(result, indices, updates, rows, body);
    } else {
      scatter_typed<decltype(tag)::value, int64_t>(result, indices, updates, rows, body);
    }
  });
}

}  // namespace ndbuf::program
