#include "ndbuf/harray/compare.hpp"

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

template <class T>
bool element_equal(const T& x, const T& y) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return to_double(x) == to_double(y);
  } else {
    return x == y;
  }
}

// Compares `count` elements of two rows with element strides `sa` and `sb`.
template <class T>
bool rows_equal(const T* a, int64_t sa, const T* b, int64_t sb, int64_t count) {
  bool equal = true;
  for (int64_t i = 0; i < count; ++i) equal &= element_equal(a[i * sa], b[i * sb]);
  return equal;
}

template <class T>
bool equal_typed(const Tensor& a, const Tensor& b) {
  const T* pa = static_cast<const T*>(a.data());
  const T* pb = static_cast<const T*>(b.data());
  const int64_t numel = a.numel();
  if (numel == 0) return true;
  if (a.is_contiguous(Order::kRowMajor) && b.is_contiguous(Order::kRowMajor)) {
    return rows_equal(pa, 1, pb, 1, numel);
  }
  const Shape& shape = a.shape();
  const size_t rank = shape.size();
  if (rank == 0) return element_equal(*pa, *pb);
  // Row-major odometer over the outer axes; the last axis is one strided row.
  const int64_t inner = shape[rank - 1];
  const int64_t rows = numel / inner;
  std::vector<int64_t> counter(rank, 0);
  int64_t oa = 0;
  int64_t ob = 0;
  for (int64_t row = 0; row < rows; ++row) {
    if (!rows_equal(pa + oa, a.strides()[rank - 1], pb + ob, b.strides()[rank - 1], inner)) {
      return false;
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++counter[k] < shape[k]) {
        oa += a.strides()[k];
        ob += b.strides()[k];
        break;
      }
      oa -= a.strides()[k] * (shape[k] - 1);
      ob -= b.strides()[k] * (shape[k] - 1);
      counter[k] = 0;
    }
  }
  return true;
}

void require_host(const Tensor& t) {
  if (t.device().platform != Platform::kCpu) {
    fail(ErrorKind::kDevice,
         "Comparing needs tensors in host memory; one is on " + device_label(t.device()) + ".");
  }
}

}  // namespace

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  require_host(a);
  require_host(b);
  return dispatch(a.dtype(),
                  [&](auto tag) { return equal_typed<typename decltype(tag)::type>(a, b); });
}

}  // namespace ndbuf
