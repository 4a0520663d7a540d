// Element access shared by the reduction and indexing kernels.
#include "program/kernels/kernel_values.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {

void kernel_error(const std::string& op, const std::string& message) {
  fail(ErrorKind::kInvalidArgument, op + ": " + message);
}

Tensor dense_host(const Tensor& x) { return make_dense(to_host(x), Order::kRowMajor); }

Strides row_major_strides(const Shape& shape) {
  Strides strides(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

int64_t group_stride(const Tensor& x, const std::vector<int64_t>& dims) {
  int64_t stride = 0, next = 0;
  for (size_t i = dims.size(); i-- > 0;) {
    const int64_t d = dims[i];
    if (x.shape()[d] == 1) continue;
    if (x.strides()[d] <= 0 || (stride != 0 && x.strides()[d] != next)) return -1;
    if (stride == 0) stride = x.strides()[d];
    next = x.strides()[d] * x.shape()[d];
  }
  return stride;
}

std::vector<int64_t> multi_index(int64_t linear, const Shape& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = linear % shape[k];
    linear /= shape[k];
  }
  return index;
}

void walk_offsets(const Shape& shape, const Strides& strides, int64_t first, int64_t count,
                  std::vector<int64_t>& out) {
  std::vector<int64_t> index = multi_index(first, shape);
  int64_t offset = 0;
  for (size_t k = 0; k < shape.size(); ++k) offset += index[k] * strides[k];
  out.resize(static_cast<size_t>(count));
  for (int64_t lane = 0; lane < count; ++lane) {
    out[static_cast<size_t>(lane)] = offset;
    for (size_t k = shape.size(); k-- > 0;) {
      offset += strides[k];
      if (++index[k] < shape[k]) break;
      offset -= shape[k] * strides[k];
      index[k] = 0;
    }
  }
}

Tensor scalar_from(DType dtype, const void* element) {
  Tensor t = Tensor::allocate(dtype, {}, Order::kRowMajor);
  std::memcpy(t.data(), element, itemsize(dtype));
  return t;
}

std::vector<const void*> region_values(const std::vector<Tensor>& results,
                                       const std::vector<DType>& dtypes, const std::string& op) {
  if (results.size() != dtypes.size()) {
    kernel_error(op, "the region returned " + std::to_string(results.size()) +
                         " values; expected " + std::to_string(dtypes.size()) + ".");
  }
  std::vector<const void*> values(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor& r = results[i];
    if (r.rank() != 0 || r.dtype() != dtypes[i] || !is_host(r.device())) {
      kernel_error(op, "region result " + std::to_string(i + 1) + " must be a 0-d host " +
                           std::string(dtype_name(dtypes[i])) + " tensor.");
    }
    values[i] = r.data();
  }
  return values;
}

bool region_truth(const std::vector<Tensor>& results, const std::string& op) {
  const auto values = region_values(results, {DType::kPred}, op);
  return *static_cast<const uint8_t*>(values[0]) != 0;
}

int64_t read_index(const void* base, DType dtype, int64_t pos) {
  return dispatch(dtype, [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T v;
      std::memcpy(&v, static_cast<const char*>(base) + pos * sizeof(T), sizeof(T));
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return std::numeric_limits<int64_t>::max();
        }
      }
      return static_cast<int64_t>(v);
    } else {
      fail(ErrorKind::kInvalidArgument,
           "Indices must have an integer dtype, not " + std::string(dtype_name(dtype)) + ".");
    }
  });
}

void check_axes(const std::vector<int64_t>& axes, size_t rank, const std::string& op,
                const std::string& what) {
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= static_cast<int64_t>(rank)) {
      kernel_error(op, what + " " + std::to_string(a) + " is not a dimension of a rank-" +
                           std::to_string(rank) + " tensor.");
    }
    if (seen[a]) kernel_error(op, what + " " + std::to_string(a) + " is listed twice.");
    seen[a] = true;
  }
}

void check_same_shapes(const std::vector<Tensor>& tensors, const std::string& op,
                       const std::string& what) {
  for (const Tensor& t : tensors) {
    if (t.shape() != tensors.front().shape()) {
      kernel_error(op, "all " + what + " must have one shape; got " +
                           shape_to_tuple(tensors.front().shape()) + " and " +
                           shape_to_tuple(t.shape()) + ".");
    }
  }
}

void check_scalar(const Tensor& t, const std::string& op, const std::string& what) {
  if (t.rank() != 0) {
    kernel_error(op, what + " must be 0-d, not of shape " + shape_to_tuple(t.shape()) + ".");
  }
}

}  // namespace ndbuf::program
