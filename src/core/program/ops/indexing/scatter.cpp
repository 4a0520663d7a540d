// stablehlo.scatter: per scatter position one start index; windows entirely inside the inputs
// are combined element by element through precomputed offsets.
#include "program/ops/indexing/scatter.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/indexing/scatter_rows.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "scatter";
constexpr int64_t kPositionBlock = 2048;  // positions whose offsets serve every window element

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

ScatterPlan plan_scatter(const Shape& input, const Shape& indices, const Shape& updates,
                         const ScatterDimensions& dims) {
  ScatterPlan plan;
  const int64_t ivd = dims.index_vector_dim;
  if (ivd < 0 || ivd > static_cast<int64_t>(indices.size())) {
    kernel_error(kOp, "index_vector_dim " + std::to_string(ivd) + " is outside [0, " +
                          std::to_string(indices.size()) + "].");
  }
  std::vector<int64_t> removed = dims.inserted_window_dims;
  removed.insert(removed.end(), dims.input_batching_dims.begin(), dims.input_batching_dims.end());
  check_axes(removed, input.size(), kOp, "inserted window or input batching dim");
  check_axes(dims.update_window_dims, updates.size(), kOp, "update window dim");
  check_axes(dims.scatter_dims_to_operand_dims, input.size(), kOp,
             "scatter_dims_to_operand_dims entry");
  check_axes(dims.scatter_indices_batching_dims, indices.size(), kOp,
             "scatter indices batching dim");
  for (int64_t d = 0; d < static_cast<int64_t>(input.size()); ++d) {
    if (!contains(removed, d)) plan.window_input_dims.push_back(d);
  }
  for (int64_t d = 0; d < static_cast<int64_t>(updates.size()); ++d) {
    if (!contains(dims.update_window_dims, d)) plan.scatter_update_dims.push_back(d);
  }
  for (int64_t d = 0; d < static_cast<int64_t>(indices.size()); ++d) {
    if (d != ivd) plan.index_batch_dims.push_back(d);
  }
  if (plan.window_input_dims.size() != dims.update_window_dims.size() ||
      plan.scatter_update_dims.size() != plan.index_batch_dims.size()) {
    kernel_error(kOp, "the update dims do not match the window and scatter dims.");
  }
  const int64_t index_length = ivd < static_cast<int64_t>(indices.size()) ? indices[ivd] : 1;
  if (static_cast<int64_t>(dims.scatter_dims_to_operand_dims.size()) != index_length ||
      dims.input_batching_dims.size() != dims.scatter_indices_batching_dims.size() ||
      contains(dims.scatter_indices_batching_dims, ivd)) {
    kernel_error(kOp, "the index vector and batching dims do not match the inputs.");
  }
  for (size_t j = 0; j < plan.index_batch_dims.size(); ++j) {
    if (updates[plan.scatter_update_dims[j]] != indices[plan.index_batch_dims[j]]) {
      kernel_error(kOp, "update scatter dims must have the sizes of the scatter indices.");
    }
  }
  plan.window_extent.assign(input.size(), 1);
  for (size_t j = 0; j < plan.window_input_dims.size(); ++j) {
    plan.window_extent[plan.window_input_dims[j]] = updates[dims.update_window_dims[j]];
  }
  return plan;
}

namespace {

// Offsets of every window element in the row-major inputs and in updates of `up_strides`.
struct WindowOffsets {
  std::vector<int64_t> in, up;
};

WindowOffsets window_offsets(const Strides& in_strides, const Shape& updates,
                             const Strides& up_strides, const ScatterDimensions& dims,
                             const ScatterPlan& plan) {
  Shape window_shape;
  for (int64_t d : dims.update_window_dims) window_shape.push_back(updates[d]);
  const int64_t window_count = checked_numel(window_shape);
  WindowOffsets w{std::vector<int64_t>(window_count), std::vector<int64_t>(window_count)};
  std::vector<int64_t> at(window_shape.size(), 0);
  for (int64_t s = 0; s < window_count; ++s, next_index(at, window_shape)) {
    w.in[s] = w.up[s] = 0;
    for (size_t j = 0; j < at.size(); ++j) {
      w.in[s] += at[j] * in_strides[plan.window_input_dims[j]];
      w.up[s] += at[j] * up_strides[dims.update_window_dims[j]];
    }
  }
  return w;
}

// Calls visit(input_offset, update_offset) with the start of each window that fits inside the
// inputs (row-major inputs, updates of `up_strides`), scatter positions in row-major order.
template <class Visit>
void for_each_position(const Shape& input, const Tensor& indices, const Strides& up_strides,
                       const ScatterDimensions& dims, const ScatterPlan& plan, Visit&& visit) {
  const Strides in_strides = row_major_strides(input);
  const Strides ix_strides = row_major_strides(indices.shape());
  const bool vector_inside = dims.index_vector_dim < static_cast<int64_t>(indices.rank());
  const int64_t vector_step = vector_inside ? ix_strides[dims.index_vector_dim] : 0;
  Shape scatter_shape;
  for (int64_t d : plan.index_batch_dims) scatter_shape.push_back(indices.shape()[d]);
  if (checked_numel(scatter_shape) == 0) return;
  std::vector<int64_t> b(scatter_shape.size(), 0);
  std::vector<int64_t> start(input.size());
  do {
    int64_t ix_base = 0, up_base = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      ix_base += b[j] * ix_strides[plan.index_batch_dims[j]];
      up_base += b[j] * up_strides[plan.scatter_update_dims[j]];
    }
    std::fill(start.begin(), start.end(), 0);
    for (size_t i = 0; i < dims.scatter_dims_to_operand_dims.size(); ++i) {
      start[dims.scatter_dims_to_operand_dims[i]] =
          read_index(indices.data(), indices.dtype(), ix_base + i * vector_step);
    }
    for (size_t i = 0; i < dims.input_batching_dims.size(); ++i) {
      const auto pos = std::find(plan.index_batch_dims.begin(), plan.index_batch_dims.end(),
                                 dims.scatter_indices_batching_dims[i]);
      start[dims.input_batching_dims[i]] = b[pos - plan.index_batch_dims.begin()];
    }
    bool inside = true;
    int64_t in_base = 0;
    for (size_t d = 0; d < input.size(); ++d) {
      inside = inside && start[d] >= 0 && start[d] <= input[d] - plan.window_extent[d];
      in_base += start[d] * in_strides[d];
    }
    if (inside) visit(in_base, up_base);
  } while (next_index(b, scatter_shape));
}

// Calls visit(input_offset, update_offset) for each element of each window that fits inside
// the inputs, scatter positions in row-major order, each window in row-major order.
template <class Visit>
void for_each_update(const Shape& input, const Tensor& indices, const Shape& updates,
                     const ScatterDimensions& dims, const ScatterPlan& plan, Visit&& visit) {
  const Strides up_strides = row_major_strides(updates);
  const WindowOffsets w = window_offsets(row_major_strides(input), updates, up_strides, dims, plan);
  const auto window_count = static_cast<int64_t>(w.in.size());
  if (window_count == 0) return;
  for_each_position(input, indices, up_strides, dims, plan, [&](int64_t in_base, int64_t up_base) {
    for (int64_t s = 0; s < window_count; ++s) visit(in_base + w.in[s], up_base + w.up[s]);
  });
}

// Whether every window spans its input dims whole: two updates then meet in one element only
// at the same window element, so any loop that keeps the positions' order per window element
// combines every element in the order of the row-major walk.
bool windows_span_inputs(const Shape& input, const ScatterPlan& plan) {
  for (int64_t d : plan.window_input_dims) {
    if (plan.window_extent[d] != input[d]) return false;
  }
  return true;
}

// A spanning scatter in the row form of scatter_rows(): one scatter position dim, i32 / i64
// indices, each window the result elements that follow its start, read from the updates with
// one stride.
std::optional<RowScatter> row_scatter(const Shape& input, const Tensor& indices,
                                      const Tensor& updates, const ScatterDimensions& dims,
                                      const ScatterPlan& plan) {
  if (plan.index_batch_dims.size() != 1 || !dims.input_batching_dims.empty() ||
      (indices.dtype() != DType::kI32 && indices.dtype() != DType::kI64)) {
    return std::nullopt;
  }
  const Strides in_strides = row_major_strides(input);
  const WindowOffsets w =
      window_offsets(in_strides, updates.shape(), updates.strides(), dims, plan);
  RowScatter rows;
  rows.row_length = static_cast<int64_t>(w.in.size());
  rows.update_element_stride = rows.row_length > 1 ? w.up[1] : 1;
  for (int64_t s = 0; s < rows.row_length; ++s) {
    if (w.in[s] != s || w.up[s] != s * rows.update_element_stride) return std::nullopt;
  }
  const Strides ix_strides = row_major_strides(indices.shape());
  const int64_t batch = plan.index_batch_dims[0];
  rows.positions = indices.shape()[batch];
  rows.index_stride = ix_strides[batch];
  if (dims.index_vector_dim < static_cast<int64_t>(indices.rank())) {
    rows.component_stride = ix_strides[dims.index_vector_dim];
  }
  rows.update_position_stride = updates.strides()[plan.scatter_update_dims[0]];
  for (int64_t d : dims.scatter_dims_to_operand_dims) {
    rows.component_strides.push_back(in_strides[d]);
    rows.component_limits.push_back(input[d] - plan.window_extent[d]);
  }
  return rows;
}

// The row-major walk's results for windows that span their input dims, reading the updates
// through their own strides: window elements in parallel runs, positions in order inside each.
// Where the window is contiguous in both, each position combines a run of a row (vectorised
// loop); otherwise each window element walks a block of positions (a column of column-major
// updates is read in order).
template <DType D>
void scatter_spans(Tensor& result, const Tensor& indices, const Tensor& updates,
                   const ScatterDimensions& dims, const ScatterPlan& plan, FastBody body) {
  using T = typename ElementType<D>::type;
  T* r = static_cast<T*>(result.data());
  const T* u = static_cast<const T*>(updates.data());
  const WindowOffsets w = window_offsets(row_major_strides(result.shape()), updates.shape(),
                                         updates.strides(), dims, plan);
  const auto window_count = static_cast<int64_t>(w.in.size());
  std::vector<int64_t> at_in, at_up;
  int64_t position_count = 1;
  for (size_t d = 0; d < indices.shape().size(); ++d) {
    if (static_cast<int64_t>(d) != dims.index_vector_dim) position_count *= indices.shape()[d];
  }
  at_in.reserve(position_count);
  at_up.reserve(position_count);
  for_each_position(result.shape(), indices, updates.strides(), dims, plan,
                    [&](int64_t in_base, int64_t up_base) {
                      at_in.push_back(in_base);
                      at_up.push_back(up_base);
                    });
  const auto positions = static_cast<int64_t>(at_in.size());
  if (window_count == 0 || positions == 0) return;
  bool contiguous = true;
  for (int64_t s = 0; s < window_count && contiguous; ++s) {
    contiguous = w.in[s] == s && w.up[s] == s;
  }
  const int64_t runs = std::min<int64_t>(window_count, std::max(1, max_threads()));
  const int64_t per_run = positions * std::max<int64_t>(1, window_count / runs);
  with_combiner<D>(body, [&](auto combine) {
    for_each_block(
        runs, per_run * 3 * static_cast<int64_t>(sizeof(T)),
        [&](int64_t begin, int64_t end) {
          for (int64_t run = begin; run < end; ++run) {
            const int64_t s0 = window_count * run / runs, s1 = window_count * (run + 1) / runs;
            if (contiguous) {
              for (int64_t q = 0; q < positions; ++q) {
                T* rr = r + at_in[q];
                const T* uu = u + at_up[q];
                for (int64_t s = s0; s < s1; ++s)
                  rr[s] = store<T>(combine(load(rr[s]), load(uu[s])));
              }
              continue;
            }
            for (int64_t q0 = 0; q0 < positions; q0 += kPositionBlock) {
              const int64_t q1 = std::min(positions, q0 + kPositionBlock);
              for (int64_t s = s0; s < s1; ++s) {  // the block's offsets stay in cache
                T* rr = r + w.in[s];
                const T* uu = u + w.up[s];
                for (int64_t q = q0; q < q1; ++q) {
                  rr[at_in[q]] = store<T>(combine(load(rr[at_in[q]]), load(uu[at_up[q]])));
                }
              }
            }
          }
        },
        kBlockElements);  // each run its own block: one run a thread
  });
}

template <DType D>
void scatter_fast(Tensor& result, const Tensor& indices, const Tensor& updates,
                  const ScatterDimensions& dims, const ScatterPlan& plan, FastBody body) {
  using T = typename ElementType<D>::type;
  T* r = static_cast<T*>(result.data());
  const T* u = static_cast<const T*>(updates.data());
  with_combiner<D>(body, [&](auto combine) {
    for_each_update(
        result.shape(), indices, updates.shape(), dims, plan,
        [&](int64_t at, int64_t from) { r[at] = store<T>(combine(load(r[at]), load(u[from]))); });
  });
}

void scatter_generic(std::vector<Tensor>& results, const Tensor& indices,
                     const std::vector<Tensor>& updates, const ScatterDimensions& dims,
                     const ScatterPlan& plan, const RegionFn& body) {
  std::vector<DType> dtypes;
  for (const Tensor& r : results) dtypes.push_back(r.dtype());
  const size_t n = results.size();
  for_each_update(
      results[0].shape(), indices, updates[0].shape(), dims, plan, [&](int64_t at, int64_t from) {
        std::vector<Tensor> args;
        for (size_t i = 0; i < n; ++i) {
          args.push_back(scalar_from(
              dtypes[i], static_cast<char*>(results[i].data()) + at * itemsize(dtypes[i])));
        }
        for (size_t i = 0; i < n; ++i) {
          const DType t = updates[i].dtype();
          args.push_back(
              scalar_from(t, static_cast<const char*>(updates[i].data()) + from * itemsize(t)));
        }
        const std::vector<Tensor> returned = body(args);
        const auto values = region_values(returned, dtypes, kOp);
        for (size_t i = 0; i < n; ++i) {
          std::memcpy(static_cast<char*>(results[i].data()) + at * itemsize(dtypes[i]), values[i],
                      itemsize(dtypes[i]));
        }
      });
}

}  // namespace

std::vector<Tensor> scatter(const std::vector<Tensor>& inputs, const Tensor& scatter_indices,
                            const std::vector<Tensor>& updates, const ScatterDimensions& dims,
                            const RegionFn& update_computation, FastBody fast) {
  if (inputs.empty() || inputs.size() != updates.size()) {
    kernel_error(kOp, "needs one updates tensor per input and at least one input.");
  }
  check_same_shapes(inputs, kOp, "inputs");
  check_same_shapes(updates, kOp, "updates");
  const ScatterPlan plan =
      plan_scatter(inputs[0].shape(), scatter_indices.shape(), updates[0].shape(), dims);
  std::vector<Tensor> results, dense_updates;
  for (const Tensor& x : inputs) results.push_back(copy_to(x, Device{}, Order::kRowMajor));
  const Tensor indices = dense_host(scatter_indices);
  const bool fast_one =
      fast != FastBody::kNone && inputs.size() == 1 && inputs[0].dtype() == updates[0].dtype();
  if (fast_one) check_fast_body(fast, inputs[0].dtype(), kOp);
  if (fast_one && windows_span_inputs(inputs[0].shape(), plan)) {
    const Tensor host_updates = to_host(updates[0]);
    if (const auto rows = row_scatter(inputs[0].shape(), indices, host_updates, dims, plan)) {
      scatter_rows(results[0], indices, host_updates, *rows, fast);
      return results;
    }
    dispatch(inputs[0].dtype(), [&](auto tag) {
      scatter_spans<decltype(tag)::value>(results[0], indices, host_updates, dims, plan, fast);
    });
    return results;
  }
  for (const Tensor& u : updates) dense_updates.push_back(dense_host(u));
  if (fast_one) {
    dispatch(inputs[0].dtype(), [&](auto tag) {
      scatter_fast<decltype(tag)::value>(results[0], indices, dense_updates[0], dims, plan, fast);
    });
    return results;
  }
  if (!update_computation) kernel_error(kOp, "the update computation is missing.");
  scatter_generic(results, indices, dense_updates, dims, plan, update_computation);
  return results;
}

}  // namespace ndbuf::program
