// The SLEEF spans of one instruction set, as vector_math.cpp picks among them.
#pragma once

#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program::detail {

struct VectorMathSet {
  SpanUnaryFn<float> (*unary_f32)(UnaryOp);
  SpanUnaryFn<double> (*unary_f64)(UnaryOp);
  SpanBinaryFn<float> (*binary_f32)(BinaryOp);
  SpanBinaryFn<double> (*binary_f64)(BinaryOp);
};

// The AVX2 (with FMA) set, or nullptr where this build has none (no SLEEF, or a compiler that
// does not take -mavx2). Its code runs only on CPUs that have both.
const VectorMathSet* vector_math_avx2();
// The AVX-512F set, or nullptr where this build has none. Its code runs only on CPUs with
// AVX-512F.
const VectorMathSet* vector_math_avx512();

}  // namespace ndbuf::program::detail
