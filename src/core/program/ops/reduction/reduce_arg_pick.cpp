// Lanes are result elements: each step along the reduced dim updates a block of lanes from one
// slice of the inputs (contiguous for a column-major matrix reduced along its rows, the layout
// R hands over; a broadcast iota's index is one value for all lanes), so the update loop is
// branch-free and vectorises, and every lane still folds its elements in order.
#include "program/ops/reduction/reduce_arg_pick.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "base/isa_clones.hpp"
#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {
namespace {

// The situations of arg_body.hpp as arithmetic on comparison outcomes (no branch, so the
// update loop vectorises): 2 - 2 (a < c) - (a == c) is 0, 1 or 2 without NaNs and 2 with one;
// a NaN c adds 2, a NaN a 1.
template <class V>
uint32_t value_situation(V a, V c) {
  uint32_t s = 2 - 2 * uint32_t{a < c} - uint32_t{a == c};
  if constexpr (std::is_floating_point_v<V>) s += 2 * uint32_t{c != c} + uint32_t{a != a};
  return s;
}

template <class I>
uint32_t index_situation(I b, I d) {
  return 2 - 2 * uint32_t{b < d} - uint32_t{b == d};
}

// Built for AVX2 too and picked at run time: the table lookup is a per-lane variable shift,
// which the baseline ISA lacks.
#define NDBUF_ARG_CLONES NDBUF_ISA_CLONES("avx2", "default")

// One step of `count` lanes: (a, b) the accumulators, (c, d) the step's elements; d is one
// index for every lane when kUniformIndex.
template <class V, class I, bool kUniformIndex>
NDBUF_ARG_CLONES void fold_step(V* a, I* b, const V* c, const I* d, int64_t count,
                                ArgPickTable table) {
#pragma omp simd
  for (int64_t l = 0; l < count; ++l) {
    const V x = a[l], y = c[l];
    const I p = b[l], q = kUniformIndex ? d[0] : d[l];
    const uint32_t s = 3 * value_situation(x, y) + index_situation(p, q);
    a[l] = (table.take_value >> s) & 1 ? y : x;
    b[l] = (table.take_index >> s) & 1 ? q : p;
  }
}

// Where lane l of a block reads one input: first + l * lane_step, then + step per position.
struct LaneWalk {
  int64_t first = 0;
  int64_t lane_step = 0;
  bool regular = false;  // lanes evenly spaced (lane_step holds); otherwise `offsets`
  std::vector<int64_t> offsets;
};

// The offsets of result elements [first, first + count) (row-major over `kept`) in an input
// with strides `kept_strides` over the kept dims.
LaneWalk lane_walk(const Shape& kept, const Strides& kept_strides, int64_t first, int64_t count) {
  LaneWalk walk;
  walk_offsets(kept, kept_strides, first, count, walk.offsets);
  walk.first = walk.offsets[0];
  walk.lane_step = count > 1 ? walk.offsets[1] - walk.offsets[0] : 0;
  walk.regular = true;
  for (int64_t l = 0; l < count && walk.regular; ++l) {
    walk.regular = walk.offsets[static_cast<size_t>(l)] == walk.first + l * walk.lane_step;
  }
  return walk;
}

// The block's elements at position `shift` of the reduced dim: in place when the lanes are
// adjacent, otherwise copied into `buffer`.
template <class T>
const T* lanes_at(const T* data, const LaneWalk& walk, int64_t shift, int64_t count, T* buffer) {
  if (walk.regular && walk.lane_step == 1) return data + walk.first + shift;
  for (int64_t l = 0; l < count; ++l)
    buffer[l] = data[walk.offsets[static_cast<size_t>(l)] + shift];
  return buffer;
}

struct ArgInputs {
  const Tensor& values;
  const Tensor& indices;
  Shape kept;
  Strides value_kept, index_kept;
  int64_t extent, value_step, index_step;
};

template <class V, class I>
void fold_block(const ArgInputs& in, int64_t first, int64_t count, V* acc, I* acc_index,
                ArgPickTable table) {
  const LaneWalk vw = lane_walk(in.kept, in.value_kept, first, count);
  const LaneWalk iw = lane_walk(in.kept, in.index_kept, first, count);
  const bool uniform_index = iw.regular && iw.lane_step == 0;
  const auto* values = static_cast<const V*>(in.values.data());
  const auto* indices = static_cast<const I*>(in.indices.data());
  std::vector<V> value_buffer(static_cast<size_t>(count));
  std::vector<I> index_buffer(static_cast<size_t>(count));
  for (int64_t j = 0; j < in.extent; ++j) {
    const V* c = lanes_at(values, vw, j * in.value_step, count, value_buffer.data());
    if (uniform_index) {
      fold_step<V, I, true>(acc, acc_index, c, indices + iw.first + j * in.index_step, count,
                            table);
    } else {
      const I* d = lanes_at(indices, iw, j * in.index_step, count, index_buffer.data());
      fold_step<V, I, false>(acc, acc_index, c, d, count, table);
    }
  }
}

template <class V, class I>
void fold_all(const ArgInputs& in, const Tensor& init_value, const Tensor& init_index, Tensor& out,
              Tensor& out_index, ArgPickTable table) {
  auto* acc = static_cast<V*>(out.data());
  auto* acc_index = static_cast<I*>(out_index.data());
  const V v0 = *static_cast<const V*>(init_value.data());
  const I i0 = *static_cast<const I*>(init_index.data());
  const int64_t outputs = out.numel();
  // Lanes a block updates per step: adjacent lanes stream whole cache lines; strided ones
  // (a row-major matrix reduced along its rows) touch a line each, so fewer of them stay cached.
  const bool adjacent = outputs == 1 || in.value_kept.back() == 1;
  const int64_t lanes = adjacent ? 256 : 32;
  const int64_t blocks = (outputs + lanes - 1) / lanes;
  const auto bytes = static_cast<int64_t>(sizeof(V) + sizeof(I)) * lanes * in.extent;
  for_each_block(
      blocks, bytes,
      [&](int64_t begin, int64_t end) {
        for (int64_t k = begin; k < end; ++k) {
          const int64_t first = k * lanes, count = std::min(lanes, outputs - first);
          std::fill(acc + first, acc + first + count, v0);
          std::fill(acc_index + first, acc_index + first + count, i0);
          fold_block<V, I>(in, first, count, acc + first, acc_index + first, table);
        }
      },
      lanes * in.extent);
}

template <class F>
void with_index_type(DType index, F&& f) {
  if (index == DType::kI32) return f(int32_t{});
  return f(int64_t{});
}

template <class F>
void with_value_type(DType value, F&& f) {
  switch (value) {
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    case DType::kI32:
      return f(int32_t{});
    default:
      return f(int64_t{});
  }
}

}  // namespace

bool arg_pick_supported(DType value, DType index) {
  const bool value_ok =
      value == DType::kF32 || value == DType::kF64 || value == DType::kI32 || value == DType::kI64;
  return value_ok && (index == DType::kI32 || index == DType::kI64);
}

std::vector<Tensor> reduce_arg_pick(const Tensor& values_in, const Tensor& indices_in,
                                    const Tensor& init_value, const Tensor& init_index,
                                    int64_t dimension, const ArgPickTable& table) {
  const Tensor values = to_host(values_in), indices = to_host(indices_in);
  const Tensor v0 = to_host(init_value), i0 = to_host(init_index);
  ArgInputs in{values,
               indices,
               {},
               {},
               {},
               values.shape()[dimension],
               values.strides()[dimension],
               indices.strides()[dimension]};
  for (size_t k = 0; k < values.rank(); ++k) {
    if (static_cast<int64_t>(k) == dimension) continue;
    in.kept.push_back(values.shape()[k]);
    in.value_kept.push_back(values.strides()[k]);
    in.index_kept.push_back(indices.strides()[k]);
  }
  Tensor out = Tensor::allocate(values.dtype(), in.kept, Order::kRowMajor);
  Tensor out_index = Tensor::allocate(indices.dtype(), in.kept, Order::kRowMajor);
  if (out.numel() == 0) return {out, out_index};
  if (in.kept.empty()) {  // one result: a lane of its own
    in.kept = {1};
    in.value_kept = {1};
    in.index_kept = {1};
  }
  with_value_type(values.dtype(), [&](auto v) {
    with_index_type(indices.dtype(), [&](auto i) {
      fold_all<decltype(v), decltype(i)>(in, v0, i0, out, out_index, table);
    });
  });
  return {out, out_index};
}

}  // namespace ndbuf::program
