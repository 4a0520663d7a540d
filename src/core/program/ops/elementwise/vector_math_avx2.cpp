// The AVX2 spans of vector_math.hpp: SLEEF's 8-lane f32 and 4-lane f64 functions. This file
// alone is compiled with -mavx2 (where the compiler takes it); vector_math.cpp calls it only on
// CPUs with AVX2 and FMA (SLEEF's AVX2 functions use both).
#include "program/ops/elementwise/vector_math_isa.hpp"

#if defined(NDBUF_HAVE_SLEEF) && defined(__AVX2__)
#define NDBUF_LANES_F32 AvxF32
#define NDBUF_LANES_F64 AvxF64
#define NDBUF_SLEEF_F32(fn, ulp) Sleef_##fn##f8_##ulp##avx2
#define NDBUF_SLEEF_F64(fn, ulp) Sleef_##fn##d4_##ulp##avx2
#include "program/ops/elementwise/vector_lanes.hpp"

namespace ndbuf::program::detail {

const VectorMathSet* vector_math_avx2() { return &kSleefSet; }

}  // namespace ndbuf::program::detail

#else

namespace ndbuf::program::detail {

const VectorMathSet* vector_math_avx2() { return nullptr; }

}  // namespace ndbuf::program::detail

#endif
