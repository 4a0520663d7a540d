// Functions built for several instruction sets and picked when first called: the package is
// compiled for the baseline x86-64 ISA (SSE2), and a loop bound by the first-level cache runs
// on twice the lanes with AVX2. GCC's target_clones makes the copies and the run-time choice;
// other compilers and other processors build the baseline form alone, as does
// NDBUF_NO_ISA_CLONES (to test that form on an AVX2 machine).
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(NDBUF_NO_ISA_CLONES)
#define NDBUF_ISA_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#else
#define NDBUF_ISA_CLONES(...)
#endif
