// stablehlo.sort: each slice along the dimension is sorted as a permutation of positions by a
// bottom-up merge sort, which stays in bounds and terminates for any comparator.
#include "program/ops/sort/sort.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "memory/element_cell.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/sort/merge_sort.hpp"
#include "program/ops/sort/order_keys.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "sort";

template <class T>
void sort_slice_fast(const T* x, int64_t step, std::vector<int64_t>& perm,
                     std::vector<int64_t>& buffer, FastComparator fast) {
  const int64_t n = static_cast<int64_t>(perm.size());
  if (fast.total_order) {
    using K = decltype(total_order_key(x[0]));
    std::vector<K> keys(n);
    for (int64_t i = 0; i < n; ++i) keys[i] = total_order_key(x[i * step]);
    merge_sort(perm, buffer, [&](int64_t a, int64_t b) {
      return keys_in_order(keys[a], keys[b], fast.direction);
    });
  } else {
    using K = decltype(ieee_key(x[0]));
    std::vector<K> keys(n);
    for (int64_t i = 0; i < n; ++i) keys[i] = ieee_key(x[i * step]);
    merge_sort(perm, buffer, [&](int64_t a, int64_t b) {
      return keys_in_order(keys[a], keys[b], fast.direction);
    });
  }
}

void sort_slice_generic(const std::vector<Tensor>& inputs, int64_t base, int64_t step,
                        std::vector<int64_t>& perm, std::vector<int64_t>& buffer,
                        const RegionFn& comparator) {
  merge_sort(perm, buffer, [&](int64_t a, int64_t b) {
    std::vector<Tensor> args;
    for (const Tensor& x : inputs) {
      const size_t size = itemsize(x.dtype());
      const char* data = static_cast<const char*>(x.data());
      args.push_back(scalar_from(x.dtype(), data + (base + a * step) * size));
      args.push_back(scalar_from(x.dtype(), data + (base + b * step) * size));
    }
    return region_truth(comparator(args), kOp);
  });
}

}  // namespace

void permute_range(const std::vector<Tensor>& inputs, std::vector<Tensor>& results, int64_t base,
                   int64_t step, const std::vector<int64_t>& perm, int64_t begin, int64_t end) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    with_cell(itemsize(inputs[i].dtype()), [&](auto cell) {
      using Cell = decltype(cell);
      const char* in = static_cast<const char*>(inputs[i].data());
      char* out = static_cast<char*>(results[i].data());
      for (int64_t p = begin; p < end; ++p) {
        std::memcpy(out + (base + p * step) * sizeof(Cell),
                    in + (base + perm[p] * step) * sizeof(Cell), sizeof(Cell));
      }
    });
  }
}

void permute_slice(const std::vector<Tensor>& inputs, std::vector<Tensor>& results, int64_t base,
                   int64_t step, const std::vector<int64_t>& perm) {
  permute_range(inputs, results, base, step, perm, 0, static_cast<int64_t>(perm.size()));
}

SortOperands sort_operands(const std::vector<Tensor>& inputs, int64_t dimension) {
  const Shape shape = inputs[0].shape();
  if (dimension < 0 || dimension >= static_cast<int64_t>(shape.size())) {
    kernel_error(kOp, "dimension " + std::to_string(dimension) + " is not a dimension of a rank-" +
                          std::to_string(shape.size()) + " tensor.");
  }
  SortOperands operands;
  for (const Tensor& x : inputs) {
    operands.dense.push_back(dense_host(x));
    operands.results.push_back(Tensor::allocate(x.dtype(), shape, Order::kRowMajor));
  }
  return operands;
}

std::vector<Tensor> sort(const std::vector<Tensor>& inputs, int64_t dimension, bool /*is_stable*/,
                         const RegionFn& comparator, FastComparator fast) {
  if (inputs.empty()) kernel_error(kOp, "needs at least one input.");
  check_same_shapes(inputs, kOp, "inputs");
  if (fast.direction == ComparatorOrder::kNone && !comparator) {
    kernel_error(kOp, "the comparator is missing.");
  }
  SortOperands operands = sort_operands(inputs, dimension);
  const std::vector<Tensor>& dense = operands.dense;
  std::vector<Tensor>& results = operands.results;
  const Shape& shape = inputs[0].shape();
  if (inputs[0].numel() == 0) return std::move(results);
  const int64_t length = shape[dimension];
  const int64_t step = row_major_strides(shape)[dimension];
  Shape outer = shape;
  outer[dimension] = 1;
  const Strides strides = row_major_strides(shape);
  std::vector<int64_t> at(shape.size(), 0), perm(length), buffer;
  do {
    int64_t base = 0;
    for (size_t k = 0; k < shape.size(); ++k) base += at[k] * strides[k];
    for (int64_t p = 0; p < length; ++p) perm[p] = p;
    if (fast.direction != ComparatorOrder::kNone) {
      dispatch(dense[0].dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        sort_slice_fast(static_cast<const T*>(dense[0].data()) + base, step, perm, buffer, fast);
      });
    } else {
      sort_slice_generic(dense, base, step, perm, buffer, comparator);
    }
    permute_slice(dense, results, base, step, perm);
  } while (next_index(at, outer));
  return std::move(results);
}

}  // namespace ndbuf::program
