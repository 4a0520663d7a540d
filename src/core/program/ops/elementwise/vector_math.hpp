// Transcendental functions of f32 and f64 on SIMD lanes through SLEEF (Debian: libsleef-dev),
// where the build found it: exp, expm1, log, log1p, logistic, the trigonometric and hyperbolic
// functions and their inverses (f32 tanh excepted: Eigen's is faster), erf, erfc, cbrt, pow and
// atan2. Where SLEEF's documented domain ends (log1p, sinh, cosh, asinh and acosh of huge
// arguments) or a set was measured outside the bound (erf and erfc near the smallest normal
// number, f32 atan2 with results below 1e-30) those elements go to libm. The instruction set
// (AVX-512F, else AVX2 with FMA, else SSE2) is chosen once per process from the CPU; every set
// keeps the bounds below (the tests check each set the machine runs). A span's last partial
// vector runs through one padded vector, so an element's result never depends on where it sits
// in a span: fused tiles and whole-tensor kernels agree bit for bit. The sets may differ from
// each other in the last bit. Error bounds: 1.0 ULP (erfc 1.5 ULP; logistic, composed of exp and
// one division, 2.5 ULP), tested against a double-precision (f32) or long-double (f64) reference
// (tests/program/ops/elementwise/vector_math_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "program/ops/elementwise/span_kernels.hpp"

namespace ndbuf::program {

// The SLEEF span of `op` for T = float or double; nullptr where the build has no SLEEF or the
// op has no vector function here (the libm kernels then run).
template <class T>
SpanUnaryFn<T> vector_unary(UnaryOp op);
template <class T>
SpanBinaryFn<T> vector_binary(BinaryOp op);

// What computes the functions above in this process: "sleef-avx512", "sleef-avx2", "sleef-sse2"
// or "libm".
const char* vector_math_backend();

// The SLEEF instruction sets this build has and this CPU runs, best first (empty without SLEEF).
std::vector<std::string> vector_math_backends();
// Makes the functions above use `backend` (one of vector_math_backends(); "" for the CPU's best)
// from now on, so that tests check every set the machine can run. Spans already handed out keep
// theirs. Throws for a backend this process cannot run.
void use_vector_math_backend(const std::string& backend);

}  // namespace ndbuf::program
