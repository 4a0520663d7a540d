// IEEE binary16 (f16) and bfloat16 (bf16) as 16-bit patterns, with conversions that round
// to nearest, ties to even, directly from double (never through float, which would round
// twice).
#pragma once

#include <cstdint>

namespace ndbuf {

struct Half {
  uint16_t bits;
};

struct BFloat16 {
  uint16_t bits;
};

// Narrowing with round-to-nearest-even; NaN stays NaN (quiet, sign kept), overflow gives Inf.
uint16_t double_to_half_bits(double value) noexcept;
uint16_t double_to_bfloat16_bits(double value) noexcept;

// Widening is exact.
double half_bits_to_double(uint16_t bits) noexcept;
double bfloat16_bits_to_double(uint16_t bits) noexcept;

inline Half to_half(double value) noexcept { return Half{double_to_half_bits(value)}; }
inline BFloat16 to_bfloat16(double value) noexcept {
  return BFloat16{double_to_bfloat16_bits(value)};
}
inline double to_double(Half h) noexcept { return half_bits_to_double(h.bits); }
inline double to_double(BFloat16 b) noexcept { return bfloat16_bits_to_double(b.bits); }

}  // namespace ndbuf

namespace ndbuf {
// Any real element as double: the widening every reader of a float tensor needs.
inline double to_double_value(Half h) noexcept { return to_double(h); }
inline double to_double_value(BFloat16 b) noexcept { return to_double(b); }
inline double to_double_value(float f) noexcept { return f; }
inline double to_double_value(double d) noexcept { return d; }
}  // namespace ndbuf
