// How a row-fused unit whose one op has a float span kernel is called (row_fused_run.cpp):
// which kernel, and for an op of a register and a row broadcast, the kernel taking the row's
// one value.
#pragma once

#include <type_traits>

#include "program/exec/row_fusion.hpp"
#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {

// A unit whose one op is a float span kernel (span_kernels.hpp) over registers and row
// broadcasts: called directly on the registers, a broadcast row filled once per row, without
// an element tile (the same kernels the tile would call, so the same bits).
struct SpanCall {
  DType dtype = DType::kF32;
  SpanUnaryFn<float> unary_f32 = nullptr;
  SpanUnaryFn<double> unary_f64 = nullptr;
  SpanBinaryFn<float> binary_f32 = nullptr;
  SpanBinaryFn<double> binary_f64 = nullptr;
  // A binary op of a register and a row broadcast: the kernel taking the row's one value, and
  // which operand of the step that value is (-1: none, fill a row instead).
  SpanScalarFn<float> scalar_f32 = nullptr;
  SpanScalarFn<double> scalar_f64 = nullptr;
  int scalar_operand = -1;

  bool usable() const {
    return unary_f32 != nullptr || unary_f64 != nullptr || binary_f32 != nullptr ||
           binary_f64 != nullptr;
  }
  template <class T>
  SpanUnaryFn<T> unary() const {
    if constexpr (std::is_same_v<T, float>) {
      return unary_f32;
    } else {
      return unary_f64;
    }
  }
  template <class T>
  SpanBinaryFn<T> binary() const {
    if constexpr (std::is_same_v<T, float>) {
      return binary_f32;
    } else {
      return binary_f64;
    }
  }
  template <class T>
  SpanScalarFn<T> scalar() const {
    if constexpr (std::is_same_v<T, float>) {
      return scalar_f32;
    } else {
      return scalar_f64;
    }
  }
};

// The span call of `unit`; not usable() for units that need an element tile.
SpanCall span_call_of(const RowUnit& unit);

}  // namespace ndbuf::program
