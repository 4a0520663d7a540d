// What dot_general's two paths share: an operand's dims split into batch, free and contracting
// dims, and the copy of an operand into a dense block with its dims in a chosen order.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/element_cast.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/contraction/dot_plan.hpp"

namespace ndbuf::program {

inline int64_t dims_product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[d];
  return n;
}

// Copies host tensor `x` (any strides) with its dims in `order` into dense row-major `dst`,
// converting each element to A (bool: nonzero).
template <class A>
void pack_operand(const Tensor& x, const std::vector<int64_t>& order, A* dst) {
  Shape shape;
  Strides strides;
  for (int64_t d : order) {
    shape.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  const int64_t count = x.numel();
  if (count == 0) return;
  dispatch(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = static_cast<const T*>(x.data());
    if constexpr (std::is_same_v<T, A>) {
      // No conversion: the core's copy (a tiled transpose on the available threads where the
      // fastest axes differ, as for a batch dim of stride 1 from an R array).
      copy_elements(src, strides, dst, row_major_strides(shape), shape, sizeof(T));
      return;
    }
    std::vector<int64_t> index(shape.size(), 0);
    int64_t pos = 0;
    for (int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<A, bool>) {
        dst[i] = cast_element<double>(src[pos]) != 0;
      } else {
        dst[i] = cast_element<A>(src[pos]);
      }
      for (size_t k = shape.size(); k-- > 0;) {
        pos += strides[k];
        if (++index[k] < shape[k]) break;
        pos -= strides[k] * shape[k];
        index[k] = 0;
      }
    }
  });
}

}  // namespace ndbuf::program
