// The AVX-512F spans of vector_math.hpp: SLEEF's 16-lane f32 and 8-lane f64 functions, about 1.5
// times the AVX2 set's speed (exp of f32: 0.54 -> 0.36 ns an element on one core). This file
// alone is compiled with -mavx512f (where the compiler takes it); vector_math.cpp calls it only
// on CPUs with AVX-512F.
#include "program/ops/elementwise/vector_math_isa.hpp"

#if defined(NDBUF_HAVE_SLEEF) && defined(__AVX512F__)
#define NDBUF_LANES_F32 Avx512F32
#define NDBUF_LANES_F64 Avx512F64
#define NDBUF_SLEEF_F32(fn, ulp) Sleef_##fn##f16_##ulp##avx512f
#define NDBUF_SLEEF_F64(fn, ulp) Sleef_##fn##d8_##ulp##avx512f
#include "program/ops/elementwise/vector_lanes.hpp"

namespace ndbuf::program::detail {

const VectorMathSet* vector_math_avx512() { return &kSleefSet; }

}  // namespace ndbuf::program::detail

#else

namespace ndbuf::program::detail {

const VectorMathSet* vector_math_avx512() { return nullptr; }

}  // namespace ndbuf::program::detail

#endif
