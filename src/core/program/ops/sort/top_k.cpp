// chlo.top_k: a partial sort of each last-dim row's positions by (value descending in total
// order, position ascending).
#include "program/ops/sort/top_k.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "program/kernels/kernel_values.hpp"
#include "program/ops/sort/order_keys.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "top_k";

template <class T>
void top_k_rows(const T* x, int64_t rows, int64_t length, int64_t k, T* values, int32_t* indices) {
  using K = decltype(total_order_key(x[0]));
  std::vector<K> keys(length);
  std::vector<int32_t> perm(length);
  for (int64_t r = 0; r < rows; ++r, x += length, values += k, indices += k) {
    for (int64_t i = 0; i < length; ++i) {
      keys[i] = total_order_key(x[i]);
      perm[i] = static_cast<int32_t>(i);
    }
    std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), [&](int32_t a, int32_t b) {
      return keys[a] > keys[b] || (keys[a] == keys[b] && a < b);
    });
    for (int64_t i = 0; i < k; ++i) {
      values[i] = x[perm[i]];
      indices[i] = perm[i];
    }
  }
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
  const Tensor x = dense_host(operand);
  const int64_t rows = x.numel() / length;
  dispatch(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::complex<float>> &&
                  !std::is_same_v<T, std::complex<double>>) {
      top_k_rows(static_cast<const T*>(x.data()), rows, length, k, static_cast<T*>(values.data()),
                 static_cast<int32_t*>(indices.data()));
    }
  });
  return {values, indices};
}

}  // namespace ndbuf::program
