// Element-wise equality of two tensors under IEEE rules, whatever their layouts.
#include "ndbuf/harray/compare.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

#include "memory/strided_walk.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

template <class T>
bool element_equal(const T& x, const T& y) {
  if constexpr (kIsNarrowFloat<T>) {
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
  const size_t rank = a.rank();
  if (rank == 0) return element_equal(*pa, *pb);
  // Row-major over the outer axes; the last axis is one strided row.
  const int64_t inner = a.shape()[rank - 1];
  StridedOdometer rows(a.shape(), a.strides(), b.strides(), leading_axes(rank - 1));
  do {
    if (!rows_equal(pa + rows.a(), a.strides()[rank - 1], pb + rows.b(), b.strides()[rank - 1],
                    inner)) {
      return false;
    }
  } while (rows.next());
  return true;
}

}  // namespace

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const Tensor host_a = to_host(a);
  const Tensor host_b = to_host(b);
  return dispatch(a.dtype(), [&](auto tag) {
    return equal_typed<typename decltype(tag)::type>(host_a, host_b);
  });
}

}  // namespace ndbuf
