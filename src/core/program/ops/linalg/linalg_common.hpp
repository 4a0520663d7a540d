// Shared pieces of the LAPACK kernels (linalg.hpp): the batch geometry, widening a row-major
// matrix of the operand's type into a column-major double / double-complex work array and
// narrowing it back, the typed LAPACK overloads, and the dtype dispatch.
#pragma once

#include <climits>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/ops/linalg/fortran_lapack.hpp"
#include "program/ops/linalg/linalg.hpp"

namespace ndbuf::program::linalg {

using zcomplex = std::complex<double>;

// The working type of an element type: double for float / double, zcomplex for complex.
template <class T>
struct Work {
  using type = double;
};
template <class F>
struct Work<std::complex<F>> {
  using type = zcomplex;
};
template <class T>
using work_t = typename Work<T>::type;

template <class T>
struct RealOf {
  using type = T;
};
template <class F>
struct RealOf<std::complex<F>> {
  using type = F;
};

template <class T, class W>
T narrow(const W& w) {
  if constexpr (std::is_same_v<T, W>) {
    return w;
  } else {
    return T(w);
  }
}
template <>
inline std::complex<float> narrow<std::complex<float>, zcomplex>(const zcomplex& w) {
  return std::complex<float>(static_cast<float>(w.real()), static_cast<float>(w.imag()));
}
template <>
inline float narrow<float, double>(const double& w) {
  return static_cast<float>(w);
}

// [..., m, n]: `count` matrices of m x n (LAPACK takes int sizes).
struct Batch {
  int64_t count = 1;
  int m = 0;
  int n = 0;
  Shape lead;  // the batch dims
};

inline int lapack_size(int64_t v, const char* what) {
  if (v > INT_MAX / 2) {
    fail(ErrorKind::kInvalidArgument,
         std::string("matrices with more than 2^30 ") + what + " are not supported");
  }
  return static_cast<int>(v);
}

inline Batch batch_of(const Shape& shape) {
  if (shape.size() < 2) fail(ErrorKind::kInvalidArgument, "the operand must have rank 2 or more");
  Batch b;
  b.lead.assign(shape.begin(), shape.end() - 2);
  for (int64_t d : b.lead) b.count *= d;
  b.m = lapack_size(shape[shape.size() - 2], "rows");
  b.n = lapack_size(shape[shape.size() - 1], "columns");
  if (static_cast<int64_t>(b.m) * b.n > INT_MAX / 2) {
    fail(ErrorKind::kInvalidArgument, "matrices of more than 2^30 elements are not supported");
  }
  return b;
}

// The batch of an operand that must be square matrices [..., n, n].
inline Batch square_batch(const Shape& shape) {
  const Batch b = batch_of(shape);
  if (b.m != b.n) fail(ErrorKind::kInvalidArgument, "the operand must be square matrices");
  return b;
}

inline Shape with_tail(const Shape& lead, std::vector<int64_t> tail) {
  Shape s = lead;
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

// A new dense row-major tensor of zeros.
inline Tensor zeroed(DType dtype, const Shape& shape) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  if (t.nbytes() > 0) std::memset(t.data(), 0, static_cast<size_t>(t.nbytes()));
  return t;
}

// The i32 [...] info of a batch, one zero per matrix.
inline Tensor zero_info(const Batch& b) { return zeroed(DType::kI32, b.lead); }

// Row-major m x n matrix of T -> column-major work array (leading dimension m).
template <class T, class W>
void load(const T* src, int m, int n, W* dst) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) dst[i + static_cast<int64_t>(j) * m] = W(src[int64_t{i} * n + j]);
  }
}

// The top-left rows x cols of a column-major work array (leading dimension ld) -> row-major T.
template <class T, class W>
void store(const W* src, int ld, int rows, int cols, T* dst) {
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      dst[int64_t{i} * cols + j] = narrow<T>(src[i + static_cast<int64_t>(j) * ld]);
    }
  }
}

template <class W>
int work_size(W w) {
  if constexpr (std::is_same_v<W, zcomplex>) {
    return static_cast<int>(w.real()) > 1 ? static_cast<int>(w.real()) : 1;
  } else {
    return static_cast<int>(w) > 1 ? static_cast<int>(w) : 1;
  }
}

// Calls f(tag) with the element type of a float or complex dtype.
template <class F>
auto dispatch_float(DType dtype, F f) {
  switch (dtype) {
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    case DType::kC64:
      return f(std::complex<float>{});
    case DType::kC128:
      return f(std::complex<double>{});
    default:
      fail(ErrorKind::kInvalidArgument, "element type " + std::string(dtype_name(dtype)) +
                                            " is not supported (f32, f64, c64 or c128 are)");
  }
}

}  // namespace ndbuf::program::linalg
