// sort_program(): per slice, keys computed in tiles then ordered (radix or merge sort), or the
// comparator program evaluated per comparison; the permutation moves every operand.
#include "program/ops/sort/sort_program.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <utility>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/element/element_compare.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/sort/merge_sort.hpp"
#include "program/ops/sort/radix_order.hpp"
#include "program/ops/sort/sort.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "sort";
constexpr int64_t kKeyLanes = 1024;
constexpr int64_t kBytesPerPosition = 16;  // key, position and the moves, roughly

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

void identity(std::vector<int64_t>& perm) {
  for (size_t p = 0; p < perm.size(); ++p) perm[p] = static_cast<int64_t>(p);
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

// The key of every element of the slice, as bytes of the key's dtype; tiles in parallel when
// `parallel` (each run of tiles with its own ElementTile).
std::vector<unsigned char> slice_keys(const std::vector<Tensor>& inputs, const Slice& s,
                                      const ElementProgram& key, const std::vector<bool>& used,
                                      bool parallel) {
  const DType dtype = key.steps[key.results[0]].dtype;
  const size_t size = itemsize(dtype);
  std::vector<unsigned char> keys(static_cast<size_t>(s.length) * size);
  const int64_t lanes = std::min(kKeyLanes, s.length);
  const int64_t tiles = (s.length + lanes - 1) / lanes;
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  for_each_block(
      tiles, parallel ? lanes * 2 * static_cast<int64_t>(size) : 0,
      [&](int64_t begin, int64_t end) {
        try {  // a tile throws only when an allocation fails
          ElementTile tile(key, lanes);
          for (int64_t t = begin; t < end && !failed.load(); ++t) {
            const int64_t first = t * lanes, count = std::min(lanes, s.length - first);
            for (size_t k = 0; k < inputs.size(); ++k) {
              if (used[k]) gather_slice(inputs[k], s, first, count, tile.argument(k));
            }
            tile.run(count);
            std::memcpy(keys.data() + first * size, tile.result(0), count * size);
          }
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) error = std::current_exception();
        }
      },
      lanes);
  if (error) std::rethrow_exception(error);
  return keys;
}

// Unsigned keys in the comparator's order (ascending for LT, descending for GT): floats by
// total order, with -0 as +0 for IEEE compares (they are equal there).
template <class T, class U>
std::vector<U> ordered_keys(const T* keys, int64_t n, CompareType type, bool descending,
                            bool parallel) {
  std::vector<U> out(n);
  constexpr U kSign = U(1) << (sizeof(U) * 8 - 1);
  const U flip = descending ? static_cast<U>(~U(0)) : U(0);
  for_each_block(n, parallel ? static_cast<int64_t>(sizeof(T) + sizeof(U)) : 0,
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) {
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
                     out[i] = u ^ flip;
                   }
                 });
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

// `parts` > 1: the slice is sorted by that many threads (one slice at a time).
template <class T>
void order_by_keys(const T* keys, int64_t n, const ComparatorKeys& c, std::vector<int64_t>& perm,
                   std::vector<int64_t>& buffer, int parts) {
  if (strict_weak(keys, n, c) && n <= int64_t{UINT32_MAX}) {
    const bool descending = c.direction == CompareDirection::kGT;
    using C = Compute<T>;
    if constexpr (sizeof(C) <= 4) {
      auto u = ordered_keys<T, uint32_t>(keys, n, c.type, descending, parts > 1);
      radix_order(u, perm, parts);
    } else {
      auto u = ordered_keys<T, uint64_t>(keys, n, c.type, descending, parts > 1);
      radix_order(u, perm, parts);
    }
    return;
  }
  identity(perm);
  with_relation(c.direction, [&](auto rel) {
    merge_sort(perm, buffer,
               [&](int64_t a, int64_t b) { return compare_real(rel, c.type, keys[a], keys[b]); });
  });
}

void order_slice(const std::vector<Tensor>& inputs, const Slice& s, const SortComparator& sc,
                 std::vector<int64_t>& perm, std::vector<int64_t>& buffer, int parts) {
  if (sc.keys) {
    const std::vector<unsigned char> keys =
        slice_keys(inputs, s, sc.keys->key, used_arguments(sc.keys->key), parts > 1);
    const DType dtype = sc.keys->key.steps[sc.keys->key.results[0]].dtype;
    dispatch(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!kIsComplex<T>) {
        order_by_keys(reinterpret_cast<const T*>(keys.data()), s.length, *sc.keys, perm, buffer,
                      parts);
      }
    });
    return;
  }
  identity(perm);
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

bool sorts_by_real_keys(const SortComparator& comparator) {
  if (!comparator.keys) return false;
  const ElementProgram& key = comparator.keys->key;
  return !is_complex(key.steps[key.results[0]].dtype);
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
  // Fewer slices than threads: one slice at a time, each sorted by the threads together.
  const int inside = slices < max_threads() ? threads_for(length * kBytesPerPosition) : 1;
  if (inside > 1) {
    std::vector<int64_t> perm(length), buffer;
    for (int64_t q = 0; q < slices; ++q) {
      const Slice s{(q / step) * length * step + q % step, step, length};
      order_slice(dense, s, comparator, perm, buffer, inside);
      for_each_block(length, kBytesPerPosition, [&](int64_t begin, int64_t end) {
        permute_range(dense, results, s.base, step, perm, begin, end);
      });
    }
    return std::move(results);
  }
  for_each_block_rethrowing(
      slices, length * kBytesPerPosition,
      [&](int64_t begin, int64_t end) {
        std::vector<int64_t> perm(length), buffer;
        for (int64_t q = begin; q < end; ++q) {
          const Slice s{(q / step) * length * step + q % step, step, length};
          order_slice(dense, s, comparator, perm, buffer, 1);
          permute_slice(dense, results, s.base, step, perm);
        }
      },
      length * 8);
  return std::move(results);
}

}  // namespace ndbuf::program
