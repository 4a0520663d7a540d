// The loops shared by the element-wise kernels: read operands of any strides (0-d operands
// broadcast), compute in float for f16 / bf16 and round once, write a dense row-major result.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/half.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/column_staging.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/result_memory.hpp"

namespace ndbuf::program::detail {

// The element-wise kernels name these through detail:: (compute_type.hpp defines them).
using ::ndbuf::program::Compute;
using ::ndbuf::program::element_of;
using ::ndbuf::program::IsComplex;
using ::ndbuf::program::kIsComplex;
using ::ndbuf::program::Lane;
using ::ndbuf::program::lane_of;
using ::ndbuf::program::lanes;
using ::ndbuf::program::load;
using ::ndbuf::program::store;

// Shared validation (elementwise_ops.cpp); each throws ndbuf::Error naming the op.
[[noreturn]] void fail_dtype(std::string_view op, DType dtype);
void check_same_shape(std::string_view op, const Tensor& lhs, const Tensor& rhs);
void check_same_dtype(std::string_view op, const Tensor& lhs, const Tensor& rhs);
void check_result_dtype(std::string_view op, DType expected, DType given);

template <class T>
inline constexpr bool kIsFloat = std::is_floating_point_v<Compute<T>> && !kIsComplex<T>;

// One operand as the loops read it: host memory, the element (0, ..., 0) and strides over the
// result's shape (all zero for a broadcast 0-d operand). `host` keeps a device copy alive.
template <class T>
struct Operand {
  Tensor host;
  const T* data;
  // Zeros for a scalar broadcast over the result's axes; otherwise empty, and strides() are
  // host's own (not copied: a copy is an allocation per operand per op).
  Strides broadcast_strides;
  bool dense;  // row-major dense over the result's shape: element i is data[i]
  const Strides& strides() const {
    return broadcast_strides.empty() ? host.strides() : broadcast_strides;
  }
};

template <class T>
Operand<T> read_operand(const Tensor& t, const Shape& shape) {
  Tensor host = to_host(t);
  const T* data = static_cast<const T*>(host.data());
  if (host.rank() == 0 && !shape.empty()) {
    return Operand<T>{host, data, Strides(shape.size(), 0), false};
  }
  const bool dense = host.is_contiguous(Order::kRowMajor);
  return Operand<T>{std::move(host), data, Strides(), dense};
}

// Where each operand's row of the last axis starts, row after row: an odometer over the outer
// axes (on the stack for up to kInlineAxes of them).
template <size_t kCount>
class RowStarts {
 public:
  RowStarts(const Shape& shape, const Strides* const* strides, int64_t row)
      : shape_(shape), outer_(shape.empty() ? 0 : shape.size() - 1), strides_(strides) {
    if (outer_ > kInlineAxes) spilled_.assign(outer_, 0);
    counter_ = outer_ > kInlineAxes ? spilled_.data() : inline_counter_;
    for (size_t axis = outer_; axis-- > 0;) {
      counter_[axis] = row % shape_[axis];
      row /= shape_[axis];
      for (size_t k = 0; k < kCount; ++k) pos[k] += counter_[axis] * (*strides_[k])[axis];
    }
  }

  void next() {
    for (size_t axis = outer_; axis-- > 0;) {
      if (++counter_[axis] < shape_[axis]) {
        for (size_t k = 0; k < kCount; ++k) pos[k] += (*strides_[k])[axis];
        return;
      }
      for (size_t k = 0; k < kCount; ++k) pos[k] -= (shape_[axis] - 1) * (*strides_[k])[axis];
      counter_[axis] = 0;
    }
  }

  int64_t pos[kCount] = {};

 private:
  static constexpr size_t kInlineAxes = 8;
  const Shape& shape_;
  size_t outer_;
  const Strides* const* strides_;
  int64_t inline_counter_[kInlineAxes] = {};
  std::vector<int64_t> spilled_;
  int64_t* counter_;
};

// Rows whose operands are read across their memory order (an R matrix's rows): kGroupRows
// rows at a time, column by column, so each operand's reads of one column and the result's
// writes stay within a few cache lines (row by row, an add of two 2000 x 2000 f32 R matrices
// took 26-28 ms against 1.3 ms for vectors of that length).
template <class TOut, class F, size_t... K, class... TIn>
void map_row_groups(TOut* out, int64_t inner, const int64_t* step, int64_t begin, int64_t end,
                    RowStarts<sizeof...(TIn)>& starts, F& f, std::index_sequence<K...>,
                    const Operand<TIn>&... in) {
  constexpr int64_t kGroupRows = 16;
  int64_t group[kGroupRows][sizeof...(TIn)];
  for (int64_t r = begin; r < end; r += kGroupRows) {
    const int64_t count = std::min(kGroupRows, end - r);
    for (int64_t g = 0; g < count; ++g) {
      for (size_t k = 0; k < sizeof...(TIn); ++k) group[g][k] = starts.pos[k];
      starts.next();
    }
    TOut* rows = out + r * inner;
    for (int64_t j = 0; j < inner; ++j) {
      for (int64_t g = 0; g < count; ++g) {
        rows[g * inner + j] = f(in.data[group[g][K] + j * step[K]]...);
      }
    }
  }
}

// Rows of the last axis for operands that are not all dense: each block of rows starts an
// odometer over the outer axes, and operand k sits at data[pos[k]] at the start of a row.
template <class TOut, class F, size_t... K, class... TIn>
void map_rows(TOut* out, const Shape& shape, int64_t rows, int64_t bytes_per_row, F& f,
              std::index_sequence<K...> order, const Operand<TIn>&... in) {
  constexpr size_t kCount = sizeof...(TIn);
  const size_t outer = shape.empty() ? 0 : shape.size() - 1;
  const int64_t inner = shape.empty() ? 1 : shape[outer];
  const int64_t step[kCount] = {(shape.empty() ? 0 : in.strides()[outer])...};
  const Strides* strides[kCount] = {&in.strides()...};
  const bool across = outer > 0 && ((step[K] != 0 && step[K] != 1) || ...);
  for_each_block(
      rows, bytes_per_row,
      [&](int64_t begin, int64_t end) {
        RowStarts<kCount> starts(shape, strides, begin);
        if (across) {
          map_row_groups(out, inner, step, begin, end, starts, f, order, in...);
          return;
        }
        for (int64_t r = begin; r < end; ++r) {
          TOut* row = out + r * inner;
          for (int64_t j = 0; j < inner; ++j) row[j] = f(in.data[starts.pos[K] + j * step[K]]...);
          starts.next();
        }
      },
      inner);
}

// Operands that reads_column_major() into the row-major `out`: the flat loop over their memory into
// a column-major staging tensor, then one tiled transpose (copy_elements()). An add of two 2000 x
// 2000 f32 R matrices took 13.7 ms walking rows of their columns (map_row_groups()).
template <class TOut, class F, size_t... K, class... TIn>
void map_through_columns(Tensor& out, F& f, int64_t bytes_per_item, std::index_sequence<K...>,
                         const Operand<TIn>&... in) {
  const Tensor staged = Tensor::allocate(out.dtype(), out.shape(), Order::kColumnMajor);
  auto* s = static_cast<TOut*>(staged.data());
  const int64_t step[] = {(in.strides().front() == 0 ? 0 : 1)...};
  for_each_block(out.numel(), bytes_per_item, [&](int64_t begin, int64_t end) {
#pragma omp simd
    for (int64_t i = begin; i < end; ++i) s[i] = f(in.data[i * step[K]]...);
  });
  copy_elements(s, staged.strides(), out.data(), out.strides(), out.shape(), sizeof(TOut));
}

// Writes out[i] = f(in[i]...) over the dense row-major result `out`. Dense operands take one
// flat loop; others walk rows of the last axis. Large arrays run in parallel blocks, so `f`
// must not throw; `serial` keeps the loop on the calling thread (for functions that write
// hidden global state).
template <class TOut, class F, class... TIn>
void map_into(Tensor& out, F&& f, bool serial, const Operand<TIn>&... in) {
  TOut* o = static_cast<TOut*>(out.data());
  const int64_t n = out.numel();
  if (n == 0) return;
  const int64_t bytes_per_item =
      serial ? 0 : static_cast<int64_t>(sizeof(TOut) + (sizeof(TIn) + ... + 0));
  if ((in.dense && ...)) {
    // omp simd: R builds with -O2, where GCC vectorises only loops it can prove cheap.
    for_each_block(n, bytes_per_item, [&](int64_t begin, int64_t end) {
      Lane<TOut>* out_lanes = lanes(o);
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) {
        out_lanes[i] = lane_of<TOut>(f(element_of<TIn>(lanes(in.data)[i])...));
      }
    });
    return;
  }
  const Shape& shape = out.shape();
  const Strides* operand_strides[] = {&in.strides()...};
  const auto strides_of = [&](size_t k) -> const Strides& { return *operand_strides[k]; };
  if (n * static_cast<int64_t>(sizeof(TOut)) <= kMaxStagedBytes &&
      reads_column_major(shape, sizeof...(TIn), strides_of)) {
    map_through_columns<TOut>(out, f, bytes_per_item, std::index_sequence_for<TIn...>{}, in...);
    return;
  }
  const int64_t inner = shape.empty() ? 1 : shape.back();
  map_rows(o, shape, n / inner, bytes_per_item * inner, f, std::index_sequence_for<TIn...>{},
           in...);
}

// out = f(x) element-wise, in memory from `memory`; `f` takes and returns compute types (float
// for f16 / bf16).
template <class TOut, class TIn, class F>
Tensor map_unary(const Tensor& x, DType out_dtype, ResultMemory& memory, F f, bool serial = false) {
  Tensor out = memory.take(out_dtype, x.shape());
  const Operand<TIn> in = read_operand<TIn>(x, x.shape());
  map_into<TOut>(
      out, [f](TIn v) { return store<TOut>(f(load(v))); }, serial, in);
  return out;
}

// out = f(a, b) element-wise over operands of one shape.
template <class TOut, class TIn, class F>
Tensor map_binary(const Tensor& a, const Tensor& b, DType out_dtype, ResultMemory& memory, F f) {
  Tensor out = memory.take(out_dtype, a.shape());
  const Operand<TIn> lhs = read_operand<TIn>(a, a.shape());
  const Operand<TIn> rhs = read_operand<TIn>(b, a.shape());
  map_into<TOut>(
      out, [f](TIn u, TIn v) { return store<TOut>(f(load(u), load(v))); }, false, lhs, rhs);
  return out;
}

}  // namespace ndbuf::program::detail
