// Transcendental functions of f32 and f64 on SIMD lanes through SLEEF (Debian: libsleef-dev),
// where the build found it: exp, expm1, log, log1p, logistic, the trigonometric and hyperbolic
// functions and their inverses (f32 tanh excepted: Eigen's is faster), erf, erfc, cbrt, pow and
// atan2. Where SLEEF's documented domain ends (log1p, sinh, cosh, asinh and acosh of huge
// arguments, f32 erf near the smallest normal number) those elements go to libm. The instruction
// set (AVX2 with FMA, else SSE2) is chosen once per process from the CPU, and a span's last partial
// vector runs through one padded vector, so an element's result never depends on where it sits in a
// span: fused tiles and whole-tensor kernels agree bit for bit. Error bounds: 1.0 ULP (erfc 1.5
// ULP; logistic, composed of exp and one division, 2.5 ULP), tested against a double-precision
// (f32) or long-double (f64) reference (tests/program/vector_math_test.cpp).
#pragma once

#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {

// The SLEEF span of `op` for T = float or double; nullptr where the build has no SLEEF or the
// op has no vector function here (the libm kernels then run).
template <class T>
SpanUnaryFn<T> vector_unary(UnaryOp op);
template <class T>
SpanBinaryFn<T> vector_binary(BinaryOp op);

// What computes the functions above in this process: "sleef-avx2", "sleef-sse2" or "libm".
const char* vector_math_backend();

}  // namespace ndbuf::program
