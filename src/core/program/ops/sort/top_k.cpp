// chlo.top_k: per last-dim row, one pass keeping the k best (value descending in total order,
// position ascending) in a sorted list: an element enters only when it beats the k-th best, which
// for k much smaller than the row is rare, so the pass costs about one comparison per element.
// Rows run in blocks on the available threads; a block of a row-major operand is read in place,
// of any other layout copied into a row-major scratch block first (the tiled copy: no transpose
// of the whole operand).
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

// The k best of one row. Equal keys keep their order of arrival (lower positions first), so an
// element enters only with a key above the k-th best's.
template <class T>
void top_k_row(const T* x, int64_t length, int64_t k, T* values, int32_t* indices,
               std::vector<std::pair<decltype(total_order_key(T{})), int32_t>>& best) {
  best.clear();
  for (int64_t i = 0; i < k; ++i) best.emplace_back(total_order_key(x[i]), static_cast<int32_t>(i));
  std::stable_sort(best.begin(), best.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (int64_t i = k; i < length; ++i) {
    const auto key = total_order_key(x[i]);
    if (!(key > best.back().first)) continue;
    size_t j = best.size() - 1;
    for (; j > 0 && best[j - 1].first < key; --j) best[j] = best[j - 1];
    best[j] = {key, static_cast<int32_t>(i)};
  }
  for (int64_t i = 0; i < k; ++i) {
    values[i] = x[best[static_cast<size_t>(i)].second];
    indices[i] = best[static_cast<size_t>(i)].second;
  }
}

// Rows [begin, end) of `x` (rows x length, any strides) into the results.
template <class T>
void top_k_block(const Tensor& x, int64_t begin, int64_t end, int64_t k, T* values,
                 int32_t* indices) {
  const int64_t length = x.shape().back();
  const Strides& strides = x.strides();
  const bool in_place = strides.back() == 1 || length == 1;
  std::vector<T> block;
  if (!in_place) {
    block.resize(static_cast<size_t>((end - begin) * length));
    const T* first = static_cast<const T*>(x.data()) + begin * strides[0];
    copy_elements(first, {strides[0], strides[1]}, block.data(), {length, 1}, {end - begin, length},
                  sizeof(T));
  }
  std::vector<std::pair<decltype(total_order_key(T{})), int32_t>> best;
  best.reserve(static_cast<size_t>(k));
  for (int64_t r = begin; r < end; ++r) {
    const T* row = in_place ? static_cast<const T*>(x.data()) + r * strides[0]
                            : block.data() + (r - begin) * length;
    top_k_row(row, length, k, values + r * k, indices + r * k, best);
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
      for_each_block(
          rows, bytes, [&](int64_t begin, int64_t end) { top_k_block(x, begin, end, k, v, i); },
          length);
    }
  });
  return {values, indices};
}

}  // namespace ndbuf::program
