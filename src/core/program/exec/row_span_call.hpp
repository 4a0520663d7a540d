// How a row-fused unit whose one op has a float span kernel is called (row_fused_run.cpp):
// which kernel, and for an op of a register and a row broadcast, the kernel taking the row's
// one value.
#pragma once

#include <type_traits>

#include "program/exec/row_fusion.hpp"
#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {

// The span kernels of one element type a unit may call.
template <class T>
struct SpanKernels {
  SpanUnaryFn<T> unary = nullptr;
  SpanBinaryFn<T> binary = nullptr;
  // A binary op of a register and a row broadcast: the kernel taking the row's one value.
  SpanScalarFn<T> scalar = nullptr;
};

// A unit whose one op is a float span kernel (span_kernels.hpp) over registers and row
// broadcasts: called directly on the registers, a broadcast row filled once per row (or its
// one value passed to the scalar kernel), without an element tile (the same kernels the tile
// would call, so the same bits).
struct SpanCall {
  DType dtype = DType::kF32;
  SpanKernels<float> f32;
  SpanKernels<double> f64;
  int scalar_operand = -1;  // which operand of the step the scalar kernel's value is

  bool usable() const {
    return f32.unary != nullptr || f32.binary != nullptr || f64.unary != nullptr ||
           f64.binary != nullptr;
  }
  template <class T>
  const SpanKernels<T>& kernels() const {
    if constexpr (std::is_same_v<T, float>) {
      return f32;
    } else {
      return f64;
    }
  }
};

// The span call of `unit`; not usable() for units that need an element tile.
SpanCall span_call_of(const RowUnit& unit);

}  // namespace ndbuf::program
