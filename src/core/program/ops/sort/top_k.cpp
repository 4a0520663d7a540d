// chlo.top_k: per last-dim row, one pass keeping the k best (value descending in total order,
// position ascending) in a sorted list: an element enters only when it beats the k-th best, which
// for k much smaller than the row is rare, so the pass costs about one comparison per element,
// made kLanes at a time in vector registers: along a row-major row, or across the rows of a
// column-major operand (an R matrix), read in place in its own order. (Copying such an operand's
// rows out first, as before, took 30% of the time, and the row-by-row pass the rest: 5.3 ms for
// 4096 x 1000 f32.) Rows run in blocks on the available threads.
#include "program/ops/sort/top_k.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/sort/order_keys.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "top_k";

template <class T>
using Key = decltype(total_order_key(T{}));

// Elements checked together against the k-th best before any is looked at alone: whole vector
// registers of keys, which in a row of 1000 with k = 10 beat the k-th best about 45 times.
constexpr int64_t kLanes = 16;
// At most this many rows of a column-major operand walked together (their lists, for a small k,
// stay in the second-level cache).
constexpr int64_t kRowsTogether = 256 * kLanes;

// The k best of one or more rows: keys descending, and among equal keys positions ascending.
template <class K>
class BestLists {
 public:
  BestLists(int64_t lists, int64_t k)
      : k_(k),
        keys_(static_cast<size_t>(lists * k)),
        positions_(static_cast<size_t>(lists * k)),
        threshold_(static_cast<size_t>(lists)) {}

  // Adds the element at `position` to list `list`, which holds fewer than k (the row's first k
  // elements, in order): after those equal to it, so that equal keys keep their order.
  void fill(int64_t list, int64_t filled, K key, int32_t position) {
    place(list, filled, key, position);
    if (filled + 1 == k_) threshold_[static_cast<size_t>(list)] = keys_[at(list, k_ - 1)];
  }
  // Offers an element of a full list, once its first k are in: it enters only with a key above
  // the k-th best's (an equal key came later, so it ranks below).
  void offer(int64_t list, K key, int32_t position) {
    if (!(key > threshold_[static_cast<size_t>(list)])) return;
    place(list, k_ - 1, key, position);
    threshold_[static_cast<size_t>(list)] = keys_[at(list, k_ - 1)];
  }
  const K* thresholds() const { return threshold_.data(); }
  int32_t position(int64_t list, int64_t i) const { return positions_[at(list, i)]; }

 private:
  size_t at(int64_t list, int64_t i) const { return static_cast<size_t>(list * k_ + i); }
  // Puts (key, position) into list `list` at or above slot `last`, shifting down the entries
  // below the key (the one in slot `last`, if any, drops out).
  void place(int64_t list, int64_t last, K key, int32_t position) {
    int64_t j = last;
    for (; j > 0 && keys_[at(list, j - 1)] < key; --j) {
      keys_[at(list, j)] = keys_[at(list, j - 1)];
      positions_[at(list, j)] = positions_[at(list, j - 1)];
    }
    keys_[at(list, j)] = key;
    positions_[at(list, j)] = position;
  }

  int64_t k_;
  std::vector<K> keys_;
  std::vector<int32_t> positions_;
  std::vector<K> threshold_;
};

// Whether any of kLanes keys (key(l) for lane l) is above its lane's threshold (one threshold
// for all lanes when kOneThreshold): a loop the compiler makes a few vector compares.
template <bool kOneThreshold, class K, class KeyAt>
bool any_above(const K* thresholds, KeyAt key) {
  K keys[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) keys[l] = key(l);
  int above = 0;
  for (int64_t l = 0; l < kLanes; ++l) {
    above |= static_cast<int>(keys[l] > thresholds[kOneThreshold ? 0 : l]);
  }
  return above != 0;
}

// Writes list `list`'s k best (positions into `row`, values read from it through `value_at`).
template <class T, class K, class ValueAt>
void write_best(const BestLists<K>& best, int64_t list, int64_t k, ValueAt value_at, T* values,
                int32_t* indices) {
  for (int64_t i = 0; i < k; ++i) {
    const int32_t position = best.position(list, i);
    values[i] = value_at(position);
    indices[i] = position;
  }
}

// The k best of one dense row, kLanes elements checked at a time, in `best` (one list of k,
// reused from row to row).
template <class T>
void top_k_row(const T* x, int64_t length, int64_t k, T* values, int32_t* indices,
               BestLists<Key<T>>& best) {
  for (int64_t i = 0; i < k; ++i) best.fill(0, i, total_order_key(x[i]), static_cast<int32_t>(i));
  int64_t i = k;
  for (; i + kLanes <= length; i += kLanes) {
    const T* run = x + i;
    if (!any_above<true>(best.thresholds(), [&](int64_t l) { return total_order_key(run[l]); })) {
      continue;
    }
    for (int64_t l = 0; l < kLanes; ++l) {
      best.offer(0, total_order_key(run[l]), static_cast<int32_t>(i + l));
    }
  }
  for (; i < length; ++i) best.offer(0, total_order_key(x[i]), static_cast<int32_t>(i));
  write_best(
      best, 0, k, [&](int32_t p) { return x[p]; }, values, indices);
}

// The k best of `rows` rows (a multiple of kLanes) whose elements at one position are adjacent
// in memory (a column-major operand): row r's element j at x[r + j * step]. The pass walks the
// operand in its memory order, position by position, each position's elements checked kLanes
// at a time against their rows' k-th best. (Walking kLanes rows to their end before the next
// kLanes read one cache line per position, 16 KiB apart in a 4096-row matrix: in a C loop
// on one thread that walk took twice as long.)
template <class T>
void top_k_adjacent_rows(const T* x, int64_t step, int64_t rows, int64_t length, int64_t k,
                         T* values, int32_t* indices) {
  BestLists<Key<T>> best(rows, k);
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t r = 0; r < rows; ++r) {
      best.fill(r, j, total_order_key(x[r + j * step]), static_cast<int32_t>(j));
    }
  }
  for (int64_t j = k; j < length; ++j) {
    const T* position = x + j * step;
    for (int64_t r = 0; r < rows; r += kLanes) {
      const T* lanes = position + r;
      if (!any_above<false>(best.thresholds() + r,
                            [&](int64_t l) { return total_order_key(lanes[l]); })) {
        continue;
      }
      for (int64_t l = 0; l < kLanes; ++l) {
        best.offer(r + l, total_order_key(lanes[l]), static_cast<int32_t>(j));
      }
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    write_best(
        best, r, k, [&](int32_t p) { return x[r + p * step]; }, values + r * k, indices + r * k);
  }
}

// Rows [begin, end) of `x` (rows x length, any strides) into the results: walked together, in
// whole groups of kLanes, where a position's elements of consecutive rows are adjacent; the
// rest row by row, each in place where it is dense or copied out first.
template <class T>
void top_k_block(const Tensor& x, int64_t begin, int64_t end, int64_t k, T* values,
                 int32_t* indices) {
  const int64_t length = x.shape().back();
  const Strides& strides = x.strides();
  const T* data = static_cast<const T*>(x.data());
  int64_t r = begin;
  if (strides[0] == 1 && length > 1) {
    const int64_t whole = (end - begin) / kLanes * kLanes;
    while (r < begin + whole) {
      const int64_t rows = std::min(kRowsTogether, begin + whole - r);
      top_k_adjacent_rows(data + r, strides[1], rows, length, k, values + r * k, indices + r * k);
      r += rows;
    }
  }
  const bool in_place = strides.back() == 1 || length == 1;
  std::vector<T> row(in_place ? 0 : static_cast<size_t>(length));
  BestLists<Key<T>> best(1, k);
  for (; r < end; ++r) {
    const T* first = data + r * strides[0];
    if (!in_place) {
      copy_elements(first, {strides[1]}, row.data(), {1}, {length}, sizeof(T));
      first = row.data();
    }
    top_k_row(first, length, k, values + r * k, indices + r * k, best);
  }
}

// `host` as a (rows x length) view when its leading dims collapse to one stride, else a dense
// row-major copy of it.
Tensor as_rows(const Tensor& host, int64_t rows, int64_t length) {
  std::vector<int64_t> leading(host.rank() - 1);
  for (size_t d = 0; d < leading.size(); ++d) leading[d] = static_cast<int64_t>(d);
  const int64_t stride = group_stride(host, leading);
  if (stride < 0) {
    return Tensor::dense(dense_host(host).storage(), host.dtype(), {rows, length},
                         Order::kRowMajor);
  }
  return Tensor(host.storage(), host.dtype(), {rows, length}, {stride, host.strides().back()},
                host.offset());
}

}  // namespace

Shape top_k_shape(const Shape& operand, DType dtype, int64_t k) {
  if (operand.empty()) kernel_error(kOp, "the operand needs rank 1 or more.");
  if (is_complex(dtype)) kernel_error(kOp, "complex operands have no order.");
  const int64_t length = operand.back();
  if (k < 0 || k > length) {
    kernel_error(kOp, "k = " + std::to_string(k) + " is outside [0, " + std::to_string(length) +
                          "], the size of the last dimension.");
  }
  if (length > std::numeric_limits<int32_t>::max()) {
    kernel_error(kOp, "the last dimension is too long for i32 indices.");
  }
  Shape shape = operand;
  shape.back() = k;
  return shape;
}

std::vector<Tensor> top_k(const Tensor& operand, int64_t k) {
  const Shape shape = top_k_shape(operand.shape(), operand.dtype(), k);
  const int64_t length = operand.shape().back();
  Tensor values = Tensor::allocate(operand.dtype(), shape, Order::kRowMajor);
  Tensor indices = Tensor::allocate(DType::kI32, shape, Order::kRowMajor);
  if (values.numel() == 0) return {values, indices};
  const Tensor host = to_host(operand);
  const int64_t rows = host.numel() / length;
  const Tensor x = as_rows(host, rows, length);
  const auto bytes = static_cast<int64_t>(itemsize(x.dtype())) * length;
  dispatch(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::complex<float>> &&
                  !std::is_same_v<T, std::complex<double>>) {
      auto* v = static_cast<T*>(values.data());
      auto* i = static_cast<int32_t*>(indices.data());
      // A column-major operand is cut into one range of rows per thread (whole groups of
      // kLanes), each walked in memory order (long runs of a position's elements, which the
      // prefetchers follow); other layouts go row by row.
      const bool adjacent = x.strides()[0] == 1 && length > 1;
      int64_t range_rows = 1;
      if (adjacent) {
        const int64_t threads =
            std::min<int64_t>((rows + kLanes - 1) / kLanes, threads_for(loop_bytes(rows, bytes)));
        range_rows = ((rows + threads - 1) / threads + kLanes - 1) / kLanes * kLanes;
      }
      const int64_t ranges = (rows + range_rows - 1) / range_rows;
      for_each_block(
          ranges, bytes * range_rows,
          [&](int64_t begin, int64_t end) {
            top_k_block(x, begin * range_rows, std::min(rows, end * range_rows), k, v, i);
          },
          adjacent ? kBlockElements : length);
    }
  });
  return {values, indices};
}

}  // namespace ndbuf::program
