// sort_program(): per slice, keys computed in tiles then ordered (radix or merge sort), or the
// comparator program evaluated per comparison; the permutation moves every operand.
#include "program/kernels/sort_program.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/element_compare.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/kernels/merge_sort.hpp"
#include "program/kernels/radix_order.hpp"
#include "program/kernels/sort.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "sort";
constexpr int64_t kKeyLanes = 1024;

// One slice of the dense inputs: elements base + p * step, p < length.
struct Slice {
  int64_t base, step, length;
};

void gather_slice(const Tensor& x, const Slice& s, int64_t first, int64_t count, void* out) {
  with_cell(itemsize(x.dtype()), [&](auto tag) {
    using C = decltype(tag);
    const C* data = static_cast<const C*>(x.data()) + s.base + first * s.step;
    C* o = static_cast<C*>(out);
    for (int64_t i = 0; i < count; ++i) o[i] = data[i * s.step];
  });
}

// Which arguments a program reads (argsort's iota operand usually is not).
std::vector<bool> used_arguments(const ElementProgram& program) {
  std::vector<bool> used_register(program.steps.size(), false), used(program.arguments.size());
  for (const ElementStep& step : program.steps) {
    for (int32_t r : step.operands) {
      if (r >= 0) used_register[r] = true;
    }
  }
  for (int32_t r : program.results) used_register[r] = true;
  for (size_t r = 0; r < program.steps.size(); ++r) {
    const ElementStep& step = program.steps[r];
    if (step.op == ElementOp::kArgument && used_register[r]) used[step.argument] = true;
  }
  return used;
}

// The key of every element of the slice, as bytes of the key's dtype.
std::vector<unsigned char> slice_keys(const std::vector<Tensor>& inputs, const Slice& s,
                                      const ElementProgram& key, const std::vector<bool>& used) {
  const DType dtype = key.steps[key.results[0]].dtype;
  const size_t size = itemsize(dtype);
  std::vector<unsigned char> keys(static_cast<size_t>(s.length) * size);
  ElementTile tile(key, std::min(kKeyLanes, s.length));
  for (int64_t first = 0; first < s.length; first += tile.lanes()) {
    const int64_t count = std::min(tile.lanes(), s.length - first);
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (used[k]) gather_slice(inputs[k], s, first, count, tile.argument(k));
    }
    tile.run(count);
    std::memcpy(keys.data() + first * size, tile.result(0), count * size);
  }
  return keys;
}

// Unsigned keys in the comparator's order (ascending for LT, descending for GT): floats by
// total order, with -0 as +0 for IEEE compares (they are equal there).
template <class T, class U>
std::vector<U> ordered_keys(const T* keys, int64_t n, CompareType type, bool descending) {
  std::vector<U> out(n);
  constexpr U kSign = U(1) << (sizeof(U) * 8 - 1);
  for (int64_t i = 0; i < n; ++i) {
    U u;
    if constexpr (std::is_floating_point_v<Compute<T>>) {
      auto c = load(keys[i]);
      if (type != CompareType::kTotalOrder && c == 0) c = 0;
      u = static_cast<U>(detail::total_order_key(c)) ^ kSign;
    } else if constexpr (std::is_signed_v<T>) {
      u = static_cast<U>(static_cast<std::make_signed_t<U>>(keys[i])) ^ kSign;
    } else {
      u = static_cast<U>(keys[i]);
    }
    out[i] = descending ? static_cast<U>(~u) : u;
  }
  return out;
}

// Whether "a before b iff key(a) DIR key(b)" is a strict weak order on these keys, so that
// its stable sort is unique and any stable algorithm finds the merge sort's permutation.
template <class T>
bool strict_weak(const T* keys, int64_t n, const ComparatorKeys& c) {
  if (c.direction != CompareDirection::kLT && c.direction != CompareDirection::kGT) return false;
  if constexpr (std::is_floating_point_v<Compute<T>>) {
    if (c.type == CompareType::kTotalOrder) return true;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(load(keys[i]))) return false;
    }
  }
  return true;
}

template <class T>
void order_by_keys(const T* keys, int64_t n, const ComparatorKeys& c, std::vector<int64_t>& perm,
                   std::vector<int64_t>& buffer) {
  if (strict_weak(keys, n, c) && n <= int64_t{UINT32_MAX}) {
    const bool descending = c.direction == CompareDirection::kGT;
    using C = Compute<T>;
    if constexpr (sizeof(C) <= 4) {
      auto u = ordered_keys<T, uint32_t>(keys, n, c.type, descending);
      radix_order(u, perm);
    } else {
      auto u = ordered_keys<T, uint64_t>(keys, n, c.type, descending);
      radix_order(u, perm);
    }
    return;
  }
  with_relation(c.direction, [&](auto rel) {
    merge_sort(perm, buffer,
               [&](int64_t a, int64_t b) { return compare_real(rel, c.type, keys[a], keys[b]); });
  });
}

void order_slice(const std::vector<Tensor>& inputs, const Slice& s, const SortComparator& sc,
                 std::vector<int64_t>& perm, std::vector<int64_t>& buffer) {
  for (int64_t p = 0; p < s.length; ++p) perm[p] = p;
  if (sc.keys) {
    const std::vector<unsigned char> keys =
        slice_keys(inputs, s, sc.keys->key, used_arguments(sc.keys->key));
    const DType dtype = sc.keys->key.steps[sc.keys->key.results[0]].dtype;
    dispatch(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!kIsComplex<T>) {
        order_by_keys(reinterpret_cast<const T*>(keys.data()), s.length, *sc.keys, perm, buffer);
      }
    });
    return;
  }
  ElementTile tile(sc.comparator, 1);
  merge_sort(perm, buffer, [&](int64_t a, int64_t b) {
    for (size_t k = 0; k < inputs.size(); ++k) {
      gather_slice(inputs[k], s, a, 1, tile.argument(2 * k));
      gather_slice(inputs[k], s, b, 1, tile.argument(2 * k + 1));
    }
    tile.run(1);
    return *static_cast<const uint8_t*>(tile.result(0)) != 0;
  });
}

}  // namespace

SortComparator make_sort_comparator(ElementProgram comparator) {
  SortComparator sc{std::move(comparator), std::nullopt};
  sc.keys = comparator_keys(sc.comparator);
  return sc;
}

std::vector<Tensor> sort_program(const std::vector<Tensor>& inputs, int64_t dimension,
                                 const SortComparator& comparator) {
  if (inputs.empty() || comparator.comparator.arguments.size() != 2 * inputs.size()) {
    kernel_error(kOp, "needs a comparator of two arguments per input.");
  }
  check_same_shapes(inputs, kOp, "inputs");
  const ElementProgram& program = comparator.comparator;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (program.arguments[2 * k] != inputs[k].dtype() ||
        program.arguments[2 * k + 1] != inputs[k].dtype() || program.results.size() != 1 ||
        program.steps[program.results[0]].dtype != DType::kPred) {
      kernel_error(kOp, "the comparator's types do not match the operands.");
    }
  }
  SortOperands operands = sort_operands(inputs, dimension);
  const std::vector<Tensor>& dense = operands.dense;
  std::vector<Tensor>& results = operands.results;
  const Shape& shape = inputs[0].shape();
  if (inputs[0].numel() == 0) return std::move(results);
  const int64_t length = shape[dimension];
  const int64_t step = row_major_strides(shape)[dimension];
  const int64_t slices = inputs[0].numel() / length;
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  for_each_block(
      slices, length * 16,
      [&](int64_t begin, int64_t end) {
        if (failed.load()) return;
        try {
          std::vector<int64_t> perm(length), buffer;
          for (int64_t q = begin; q < end; ++q) {
            const Slice s{(q / step) * length * step + q % step, step, length};
            order_slice(dense, s, comparator, perm, buffer);
            permute_slice(dense, results, s.base, step, perm);
          }
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) error = std::current_exception();
        }
      },
      length * 8);
  if (error) std::rethrow_exception(error);
  return std::move(results);
}

}  // namespace ndbuf::program
