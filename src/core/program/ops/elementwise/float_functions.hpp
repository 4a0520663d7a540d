// The element functions of the float kernels that fused spans also run, as named function
// objects: the tensor kernels (elementwise_*_float.cpp) and the span kernels
// (span_kernels.cpp) call the same definitions, so fused and unfused results agree bit for bit.
#pragma once

#include <cmath>

#include "program/ops/elementwise/elementwise_scalar.hpp"

namespace ndbuf::program::detail {

struct AddFn {
  template <class C>
  C operator()(C u, C v) const {
    return u + v;
  }
};
struct SubtractFn {
  template <class C>
  C operator()(C u, C v) const {
    return u - v;
  }
};
struct MultiplyFn {
  template <class C>
  C operator()(C u, C v) const {
    return u * v;
  }
};
struct DivideFn {
  template <class C>
  C operator()(C u, C v) const {
    return u / v;
  }
};
struct MaximumFn {
  template <class C>
  C operator()(C u, C v) const {
    return float_maximum(u, v);
  }
};
struct MinimumFn {
  template <class C>
  C operator()(C u, C v) const {
    return float_minimum(u, v);
  }
};

struct NegateFn {
  template <class C>
  C operator()(C v) const {
    return -v;
  }
};
struct AbsFn {
  template <class C>
  C operator()(C v) const {
    return std::fabs(v);
  }
};
struct SquareFn {
  template <class C>
  C operator()(C v) const {
    return v * v;
  }
};
struct ExpFn {
  template <class C>
  C operator()(C v) const {
    return std::exp(v);
  }
};
struct LogFn {
  template <class C>
  C operator()(C v) const {
    return std::log(v);
  }
};
struct LogisticFn {
  template <class C>
  C operator()(C v) const {
    return C(1) / (C(1) + std::exp(-v));
  }
};
struct SqrtFn {
  template <class C>
  C operator()(C v) const {
    return std::sqrt(v);
  }
};
struct RsqrtFn {
  template <class C>
  C operator()(C v) const {
    return C(1) / std::sqrt(v);
  }
};
struct TanhFn {
  template <class C>
  C operator()(C v) const {
    return std::tanh(v);
  }
};

}  // namespace ndbuf::program::detail
