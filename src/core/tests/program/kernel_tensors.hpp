// Building and reading small tensors in the program kernel tests.
#pragma once

#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program::testing {

// A dense row-major tensor of `shape` holding `values` (converted to the element type T).
template <class T>
Tensor tensor_of(DType dtype, const Shape& shape, const std::vector<T>& values) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  if (!values.empty()) std::memcpy(t.data(), values.data(), values.size() * sizeof(T));
  return t;
}

inline Tensor f32(const Shape& shape, const std::vector<float>& v) {
  return tensor_of(DType::kF32, shape, v);
}
inline Tensor f64(const Shape& shape, const std::vector<double>& v) {
  return tensor_of(DType::kF64, shape, v);
}
inline Tensor i32(const Shape& shape, const std::vector<int32_t>& v) {
  return tensor_of(DType::kI32, shape, v);
}
inline Tensor i64(const Shape& shape, const std::vector<int64_t>& v) {
  return tensor_of(DType::kI64, shape, v);
}
inline Tensor pred(const Shape& shape, const std::vector<uint8_t>& v) {
  return tensor_of(DType::kPred, shape, v);
}
inline Tensor f16(const Shape& shape, const std::vector<double>& v) {
  std::vector<Half> h;
  for (double x : v) h.push_back(to_half(x));
  return tensor_of(DType::kF16, shape, h);
}
inline Tensor bf16(const Shape& shape, const std::vector<double>& v) {
  std::vector<BFloat16> h;
  for (double x : v) h.push_back(to_bfloat16(x));
  return tensor_of(DType::kBF16, shape, h);
}

// The elements of `t` in row-major order.
template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor d = make_dense(t, Order::kRowMajor);
  std::vector<T> v(static_cast<size_t>(d.numel()));
  if (!v.empty()) std::memcpy(v.data(), d.data(), v.size() * sizeof(T));
  return v;
}

// f16 / bf16 elements as doubles.
inline std::vector<double> half_values(const Tensor& t) {
  std::vector<double> out;
  if (t.dtype() == DType::kF16) {
    for (Half h : values<Half>(t)) out.push_back(to_double(h));
  } else {
    for (BFloat16 b : values<BFloat16>(t)) out.push_back(to_double(b));
  }
  return out;
}

// The same logical values stored column-major: a strided, non-row-major input.
inline Tensor column_major(const Tensor& t) {
  Tensor out = Tensor::allocate(t.dtype(), t.shape(), Order::kColumnMajor);
  copy_to_dense(t, out.data(), Order::kColumnMajor);
  return out;
}

inline Tensor scalar_f32(float v) { return f32({}, {v}); }
inline Tensor scalar_i32(int32_t v) { return i32({}, {v}); }

// A two-argument region over 0-d tensors of element type T computing f(a, b).
template <class T>
RegionFn binary_region(DType dtype, std::function<T(T, T)> f) {
  return [dtype, f](const std::vector<Tensor>& args) {
    T a, b;
    std::memcpy(&a, args.at(0).data(), sizeof(T));
    std::memcpy(&b, args.at(1).data(), sizeof(T));
    const T r = f(a, b);
    return std::vector<Tensor>{tensor_of(dtype, {}, std::vector<T>{r})};
  };
}

// A comparator region over 0-d tensors of element type T (first operand pair only).
template <class T>
RegionFn comparator_region(std::function<bool(T, T)> less) {
  return [less](const std::vector<Tensor>& args) {
    T a, b;
    std::memcpy(&a, args.at(0).data(), sizeof(T));
    std::memcpy(&b, args.at(1).data(), sizeof(T));
    return std::vector<Tensor>{pred({}, {static_cast<uint8_t>(less(a, b) ? 1 : 0)})};
  };
}

// A random shape of `rank` dims of sizes 1..max_dim.
inline Shape random_shape(std::mt19937& rng, size_t rank, int64_t max_dim) {
  Shape s(rank);
  for (auto& d : s) d = std::uniform_int_distribution<int64_t>(1, max_dim)(rng);
  return s;
}

// Unflattens a row-major position into a multi-index of `shape`.
inline std::vector<int64_t> unflatten(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    idx[k] = flat % shape[k];
    flat /= shape[k];
  }
  return idx;
}

inline int64_t flatten(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + idx[k];
  return flat;
}

}  // namespace ndbuf::program::testing
