// An independent convolution for the tests, written from the spec's definition: the input is
// padded and base-dilated into a materialised array first, then each window is read from it
// (reversed where asked) and multiplied with the kernel, in doubles. Operands are in the
// canonical layouts lhs [batch, spatial..., feature] and rhs [spatial..., in, out]; the result
// is [batch / batch_groups, spatial..., out].
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {

struct NaiveWindow {
  std::vector<int64_t> stride, lhs_dilation, rhs_dilation;
  std::vector<std::pair<int64_t, int64_t>> padding;
  std::vector<bool> reverse;
  int64_t feature_groups = 1, batch_groups = 1;
};

inline bool step_index(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t k = shape.size(); k-- > 0;) {
    if (++index[k] < shape[k]) return true;
    index[k] = 0;
  }
  return false;
}

inline int64_t flat_index(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + index[k];
  return flat;
}

inline int64_t count_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Returns the result and sets *out_shape.
inline std::vector<double> naive_convolution(const std::vector<double>& x, const Shape& xs,
                                             const std::vector<double>& w, const Shape& ws,
                                             const NaiveWindow& c, Shape* out_shape) {
  const size_t s = xs.size() - 2;
  const int64_t batch = xs[0], features = xs[s + 1], in = ws[s], out = ws[s + 1];
  // The padded, dilated input.
  Shape ps = {batch};
  for (size_t d = 0; d < s; ++d) {
    const int64_t dilated = xs[d + 1] == 0 ? 0 : (xs[d + 1] - 1) * c.lhs_dilation[d] + 1;
    ps.push_back(std::max<int64_t>(0, c.padding[d].first + dilated + c.padding[d].second));
  }
  ps.push_back(features);
  std::vector<double> padded(static_cast<size_t>(count_of(ps)), 0.0);
  std::vector<int64_t> i(xs.size(), 0);
  if (count_of(xs) > 0) {
    do {
      std::vector<int64_t> q = i;
      bool inside = true;
      for (size_t d = 0; d < s; ++d) {
        q[d + 1] = c.padding[d].first + i[d + 1] * c.lhs_dilation[d];
        inside = inside && q[d + 1] >= 0 && q[d + 1] < ps[d + 1];
      }
      if (inside) padded[flat_index(q, ps)] = x[flat_index(i, xs)];
    } while (step_index(i, xs));
  }
  Shape os = {batch / c.batch_groups};
  for (size_t d = 0; d < s; ++d) {
    const int64_t span = (ws[d] - 1) * c.rhs_dilation[d] + 1;
    os.push_back(ps[d + 1] < span || ps[d + 1] == 0 ? 0 : (ps[d + 1] - span) / c.stride[d] + 1);
  }
  os.push_back(out);
  *out_shape = os;
  std::vector<double> result(static_cast<size_t>(count_of(os)), 0.0);
  if (result.empty()) return result;
  std::vector<int64_t> o(os.size(), 0);
  do {
    const int64_t feature = o[s + 1];
    const int64_t bgroup = feature / (out / c.batch_groups);
    const int64_t fgroup = feature / (out / c.feature_groups);
    const int64_t image = bgroup * os[0] + o[0];
    double sum = 0;
    std::vector<int64_t> k(ws.size(), 0);
    do {
      if (k[s + 1] != feature) continue;
      std::vector<int64_t> at(ps.size(), 0);
      at[0] = image;
      at[s + 1] = fgroup * in + k[s];
      for (size_t d = 0; d < s; ++d) {
        const int64_t j = c.reverse[d] ? ws[d] - 1 - k[d] : k[d];
        at[d + 1] = o[d + 1] * c.stride[d] + j * c.rhs_dilation[d];
      }
      sum += padded[flat_index(at, ps)] * w[flat_index(k, ws)];
    } while (step_index(k, ws));
    result[flat_index(o, os)] = sum;
  } while (step_index(o, os));
  return result;
}

// A view of `t` whose dim k is t's dim order[k] (no copy: a strided input).
inline Tensor permuted(const Tensor& t, const std::vector<int64_t>& order) {
  Shape shape;
  Strides strides;
  for (int64_t d : order) {
    shape.push_back(t.shape()[d]);
    strides.push_back(t.strides()[d]);
  }
  return Tensor(t.storage(), t.dtype(), shape, strides, t.offset());
}

// `v` as a tensor of `dtype` (f32, f64, f16, bf16, i8, i32, i64).
inline Tensor tensor_from(DType dtype, const Shape& shape, const std::vector<double>& v) {
  switch (dtype) {
    case DType::kF32:
      return f32(shape, std::vector<float>(v.begin(), v.end()));
    case DType::kF16:
      return f16(shape, v);
    case DType::kBF16:
      return bf16(shape, v);
    case DType::kI8:
      return tensor_of(dtype, shape, std::vector<int8_t>(v.begin(), v.end()));
    case DType::kI32:
      return i32(shape, std::vector<int32_t>(v.begin(), v.end()));
    case DType::kI64:
      return i64(shape, std::vector<int64_t>(v.begin(), v.end()));
    default:
      return f64(shape, v);
  }
}

// The elements of `t` (any of the dtypes above) as doubles, row-major.
inline std::vector<double> doubles_of(const Tensor& t) {
  auto as = [](auto v) { return std::vector<double>(v.begin(), v.end()); };
  switch (t.dtype()) {
    case DType::kF32:
      return as(values<float>(t));
    case DType::kF16:
    case DType::kBF16:
      return half_values(t);
    case DType::kI8:
      return as(values<int8_t>(t));
    case DType::kI32:
      return as(values<int32_t>(t));
    case DType::kI64:
      return as(values<int64_t>(t));
    default:
      return values<double>(t);
  }
}

}  // namespace ndbuf::program::testing
