// Branch-free f16 / bf16 conversions from and to double, bit-identical to base/half's
// reference ones, for loops that vectorise; array forms with run-time ISA dispatch.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ndbuf {

// The bytes of `from` read as a `To` of the same size (what C++20's std::bit_cast does).
template <class To, class From>
inline To same_bits(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

inline uint64_t bits_of(double value) { return same_bits<uint64_t>(value); }
inline double double_of(uint64_t bits) { return same_bits<double>(bits); }
inline uint32_t f32_bits(float value) { return same_bits<uint32_t>(value); }
inline float f32_of(uint32_t bits) { return same_bits<float>(bits); }

// `when` ? a : b as bit masks, so loops stay free of branches the vectoriser cannot convert;
// U is the lane's unsigned type (64 bits for the double forms, 32 for the f32 ones).
template <class U>
inline U select_bits(bool when, U a, U b) {
  const U mask = U{0} - static_cast<U>(when);
  return (a & mask) | (b & ~mask);
}

// A 16-bit float format with `kExpBits` exponent and `kMantBits` fraction bits, and the
// constants its branch-free conversions need.
template <int kExpBits, int kMantBits>
struct HalfFormat {
  static constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  static constexpr int kDrop = 52 - kMantBits;  // fraction bits a double has beyond ours
  static constexpr uint64_t kInf = ((uint64_t{1} << kExpBits) - 1) << kMantBits;
  static constexpr uint64_t kQuietNaN = kInf | (uint64_t{1} << (kMantBits - 1));
  static constexpr uint64_t kRebias = static_cast<uint64_t>(1023 - kBias) << kMantBits;
  // 2^(kBias - 1023): a double whose exponent field holds ours, times this, is our value.
  static double widen_scale() { return double_of(static_cast<uint64_t>(2 * 1023 - kBias) << 52); }
  // The smallest normal magnitude, 2^(1 - kBias).
  static double min_normal() { return double_of(static_cast<uint64_t>(1024 - kBias) << 52); }
  // Magnitudes from here round to infinity: halfway between the largest finite value and
  // the next power of two (a tie, which rounds to infinity's even fraction).
  static double overflow() {
    const uint64_t exponent = static_cast<uint64_t>(1023 + kBias) << 52;
    return double_of(exponent | (((uint64_t{1} << (kMantBits + 1)) - 1) << (kDrop - 1)));
  }
  // A power of two whose unit in the last place is our smallest subnormal: adding it to a
  // smaller magnitude rounds that magnitude to subnormal units (ties to even) in one step.
  static double subnormal_anchor() {
    return double_of(static_cast<uint64_t>(1023 + 52 + 1 - kBias - kMantBits) << 52);
  }
};

using HalfF16 = HalfFormat<5, 10>;
using HalfBF16 = HalfFormat<8, 7>;

// Round to nearest even; NaN becomes the quiet NaN of the same sign; overflow gives Inf.
template <class F>
inline uint16_t narrow_bits(double value) {
  const uint64_t bits = bits_of(value);
  const uint64_t sign = (bits >> 48) & 0x8000;
  const uint64_t magnitude_bits = bits & ~(uint64_t{1} << 63);
  const double magnitude = std::fabs(value);
  const uint64_t round_bias = ((uint64_t{1} << (F::kDrop - 1)) - 1) + ((bits >> F::kDrop) & 1);
  const uint64_t normal = ((magnitude_bits + round_bias) >> F::kDrop) - F::kRebias;
  const double anchor = F::subnormal_anchor();
  const uint64_t subnormal = bits_of(magnitude + anchor) - bits_of(anchor);
  uint64_t out = select_bits(magnitude < F::min_normal(), subnormal, normal);
  out = select_bits(magnitude >= F::overflow(), F::kInf, out);
  out = select_bits(value != value, F::kQuietNaN, out);
  return static_cast<uint16_t>(out | sign);
}

// Exact; NaN payloads are kept.
template <class F>
inline double widen_bits(uint16_t bits) {
  const uint64_t sign = static_cast<uint64_t>(bits & 0x8000) << 48;
  const uint64_t magnitude = bits & 0x7FFF;
  const uint64_t shifted = magnitude << F::kDrop;
  const uint64_t scaled = bits_of(double_of(shifted) * F::widen_scale());
  const uint64_t special = shifted | (uint64_t{0x7FF} << 52);
  return double_of(select_bits(magnitude >= F::kInf, special, scaled) | sign);
}

// f32 arithmetic only, so loops over these vectorise on any SSE2 CPU (the double forms above
// need 64-bit lanes): the same bits as widen_bits() rounded to f32, and as narrow_bits() of
// the f32 widened to double.

// bf16 from the bits of an f32, rounded to nearest even in f32 bits (bf16 has f32's exponent
// range, so the carry out of the fraction is the whole of overflow and of subnormal rounding);
// the same bits as narrow_bits<HalfBF16> of the f32 widened to double.
inline uint16_t bf16_of_f32_bits(uint32_t bits) {
  const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = ((bits >> 16) & 0x8000u) | static_cast<uint32_t>(HalfBF16::kQuietNaN);
  const bool nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<uint16_t>(select_bits<uint32_t>(nan, quiet_nan, rounded));
}

// Exact; a NaN keeps its payload and comes back quiet, as from the double rounded to f32.
inline float quiet_f32_of_bf16(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  const bool nan = (wide & 0x7FFFFFFFu) > 0x7F800000u;
  return f32_of(wide | select_bits<uint32_t>(nan, 0x00400000u, 0));
}

inline float quiet_f32_of_f16(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t shifted = static_cast<uint32_t>(bits & 0x7FFF) << 13;
  // The exponent field moved to f32's place reads 2^(15 - 127) too small; subnormals too.
  const uint32_t scaled = f32_bits(f32_of(shifted) * 0x1p112f);
  const uint32_t quiet = select_bits<uint32_t>(shifted > 0x0F800000u, 0x00400000u, 0);
  const uint32_t special = shifted | 0x7F800000u | quiet;
  return f32_of(select_bits<uint32_t>(shifted >= 0x0F800000u, special, scaled) | sign);
}

// Round to nearest even; NaN becomes the quiet NaN of the same sign; overflow gives Inf.
inline uint16_t f16_of_f32(float value) {
  const uint32_t bits = f32_bits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  const uint32_t rebias = 112u << 23;  // f32's exponent bias less f16's, in place
  const uint32_t normal = (magnitude - rebias + 0xFFFu + ((magnitude >> 13) & 1u)) >> 13;
  // 0.5 has a unit in the last place of 2^-24, f16's smallest subnormal: the addition rounds
  // a magnitude below 2^-14 to whole subnormal steps in one go.
  const uint32_t subnormal = f32_bits(f32_of(magnitude) + 0.5f) - f32_bits(0.5f);
  uint32_t out = select_bits<uint32_t>(magnitude < 0x38800000u, subnormal, normal);  // below 2^-14
  out = select_bits<uint32_t>(magnitude >= 0x477FF000u, HalfF16::kInf, out);         // from 65520
  out = select_bits<uint32_t>(magnitude > 0x7F800000u, HalfF16::kQuietNaN, out);
  return static_cast<uint16_t>(out | sign);
}

// Array forms (half_kernels.cpp): compiled for AVX2 and for the baseline ISA, picked at run
// time where the compiler supports it.
void narrow_to_f16(const double* in, uint16_t* out, int64_t count);
void narrow_to_bf16(const double* in, uint16_t* out, int64_t count);
void widen_f16(const uint16_t* in, double* out, int64_t count);
void widen_bf16(const uint16_t* in, double* out, int64_t count);

// The f32 forms the f32-accumulating contractions use: narrowing rounds once, as from the f32
// widened to double; widening is exact (bf16 keeps its NaN payload bit for bit).
void narrow_f32_to_f16(const float* in, uint16_t* out, int64_t count);
void narrow_f32_to_bf16(const float* in, uint16_t* out, int64_t count);
void widen_f16_to_f32(const uint16_t* in, float* out, int64_t count);
void widen_bf16_to_f32(const uint16_t* in, float* out, int64_t count);
// bf16 widened as quiet_f32_of_bf16() widens (f16's widening above already quiets NaNs).
void quiet_widen_bf16_to_f32(const uint16_t* in, float* out, int64_t count);

}  // namespace ndbuf
