// The block loops of the R -> dtype conversions: element functions inlined, pointers as
// parameters, so they vectorise; large arrays run in parallel blocks.
#pragma once

#include <atomic>
#include <cstdint>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {

// Lowers `target` to `value` if smaller (blocks report failures in any order).
inline void lower_to(std::atomic<int64_t>& target, int64_t value) {
  int64_t current = target.load();
  while (value < current && !target.compare_exchange_weak(current, value)) {
  }
}

// 1 when a == b, else 0, in a form that vectorises: SSE2 (the package's baseline ISA) has no
// 64-bit compare, so for 8-byte lanes x = a ^ b is zero exactly when the top bit of
// ~x & (x - 1) is set (shifts and logic only).
template <class T>
inline int64_t lane_equal(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    const uint64_t x = static_cast<uint64_t>(a) ^ static_cast<uint64_t>(b);
    return static_cast<int64_t>((~x & (x - 1)) >> 63);
  } else {
    return a == b;
  }
}

// One block of a checked conversion; returns whether every element fitted. The pointers are
// parameters (not captures read through a closure, which a char-sized store might alias), so
// the loop vectorises.
template <class Dst, class Src, class Fits, class Cast>
bool convert_block_checked(const Src* in, Dst* out, int64_t count, Fits fits, Cast cast) {
  int all_fit = 1;
#pragma omp simd reduction(& : all_fit)
  for (int64_t i = 0; i < count; ++i) {
    const bool good = fits(in[i]);
    out[i] = good ? cast(in[i]) : Dst{};
    all_fit &= static_cast<int>(good);
  }
  return all_fit != 0;
}

template <class Dst, class Src, class Cast>
void convert_block(const Src* in, Dst* out, int64_t count, Cast cast) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) out[i] = cast(in[i]);
}

// Converts with a per-element check; `fits` and `cast` see one source element. The inner
// loop has no early exit (so it vectorises); a block that failed is rescanned for its first
// offending element, and the smallest such position over all blocks is reported.
// Returns the position of the first element that did not fit, or `count` when all did.
template <class Dst, class Src, class Fits, class Cast>
int64_t convert_checked_loop(const Src* in, Dst* out, int64_t count, Fits fits, Cast cast) {
  std::atomic<int64_t> first_bad{count};
  for_each_block(count, sizeof(Src) + sizeof(Dst), [&](int64_t begin, int64_t end) {
    if (convert_block_checked(in + begin, out + begin, end - begin, fits, cast)) return;
    for (int64_t i = begin; i < end; ++i) {
      if (!fits(in[i])) return lower_to(first_bad, i);
    }
  });
  return first_bad.load();
}

template <class Dst, class Src, class Cast>
void convert_unchecked_loop(const Src* in, Dst* out, int64_t count, Cast cast) {
  for_each_block(count, sizeof(Src) + sizeof(Dst), [&](int64_t begin, int64_t end) {
    convert_block(in + begin, out + begin, end - begin, cast);
  });
}

}  // namespace ndbuf
