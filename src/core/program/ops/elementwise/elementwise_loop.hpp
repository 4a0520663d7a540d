// The loops shared by the element-wise kernels: read operands of any strides (0-d operands
// broadcast), compute in float for f16 / bf16 and round once, write a dense row-major result.
#pragma once

#include <complex>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/half.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/result_memory.hpp"

namespace ndbuf::program::detail {

// The element-wise kernels name these through detail:: (compute_type.hpp defines them).
using ::ndbuf::program::Compute;
using ::ndbuf::program::IsComplex;
using ::ndbuf::program::kIsComplex;
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

// Rows of the last axis for operands that are not all dense: each block of rows starts an
// odometer over the outer axes, and operand k sits at data[pos[k]] at the start of a row.
template <class TOut, class F, size_t... K, class... TIn>
void map_rows(TOut* out, const Shape& shape, int64_t rows, int64_t bytes_per_row, F& f,
              std::index_sequence<K...>, const Operand<TIn>&... in) {
  constexpr size_t kCount = sizeof...(TIn);
  const size_t outer = shape.empty() ? 0 : shape.size() - 1;
  const int64_t inner = shape.empty() ? 1 : shape[outer];
  const int64_t step[kCount] = {(shape.empty() ? 0 : in.strides()[outer])...};
  const Strides* strides[kCount] = {&in.strides()...};
  for_each_block(
      rows, bytes_per_row,
      [&](int64_t begin, int64_t end) {
        // Arrays of up to kInlineAxes axes keep their odometer on the stack.
        constexpr size_t kInlineAxes = 8;
        int64_t inline_counter[kInlineAxes] = {};
        std::vector<int64_t> spilled_counter(outer > kInlineAxes ? outer : 0, 0);
        int64_t* counter = outer > kInlineAxes ? spilled_counter.data() : inline_counter;
        int64_t pos[kCount] = {};
        int64_t rest = begin;
        for (size_t axis = outer; axis-- > 0;) {
          counter[axis] = rest % shape[axis];
          rest /= shape[axis];
          for (size_t k = 0; k < kCount; ++k) pos[k] += counter[axis] * (*strides[k])[axis];
        }
        for (int64_t r = begin; r < end; ++r) {
          TOut* row = out + r * inner;
          for (int64_t j = 0; j < inner; ++j) row[j] = f(in.data[pos[K] + j * step[K]]...);
          for (size_t axis = outer; axis-- > 0;) {
            if (++counter[axis] < shape[axis]) {
              for (size_t k = 0; k < kCount; ++k) pos[k] += (*strides[k])[axis];
              break;
            }
            for (size_t k = 0; k < kCount; ++k) pos[k] -= (shape[axis] - 1) * (*strides[k])[axis];
            counter[axis] = 0;
          }
        }
      },
      inner);
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
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) o[i] = f(in.data[i]...);
    });
    return;
  }
  const Shape& shape = out.shape();
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
