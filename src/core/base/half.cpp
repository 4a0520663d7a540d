// f16 and bf16 encodings: correctly rounded conversions from double and back.
#include "ndbuf/base/half.hpp"

#include <cmath>
#include <cstring>

namespace ndbuf {
namespace {

constexpr int kDoubleMantissaBits = 52;
constexpr int kDoubleBias = 1023;

uint64_t double_bits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// Rounds the magnitude `significand * 2^-shift` to an integer, ties to even.
uint64_t shift_right_rounding(uint64_t significand, int shift) {
  if (shift <= 0) return significand;
  if (shift >= 64) return 0;  // below half of the smallest step: rounds to zero
  const uint64_t kept = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1));
  return kept + (round_up ? 1 : 0);
}

// Rounds a double to a binary format with `exp_bits` exponent and `mant_bits` fraction bits
// (at most 16 bits in all). Carries out of the fraction propagate into the exponent, which
// is exactly how IEEE rounding reaches the next binade or infinity.
uint16_t narrow_double(double value, int exp_bits, int mant_bits) {
  const uint64_t bits = double_bits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << (exp_bits + mant_bits));
  const int biased = static_cast<int>((bits >> kDoubleMantissaBits) & 0x7FF);
  const uint64_t fraction = bits & ((uint64_t{1} << kDoubleMantissaBits) - 1);
  const uint16_t exp_all_ones = static_cast<uint16_t>(((1u << exp_bits) - 1) << mant_bits);

  if (biased == 0x7FF) {  // Inf or NaN
    if (fraction == 0) return sign | exp_all_ones;
    return sign | exp_all_ones | static_cast<uint16_t>(1u << (mant_bits - 1));  // quiet NaN
  }
  if (biased == 0) return sign;  // zero or a double subnormal: far below any 16-bit format

  const int bias = (1 << (exp_bits - 1)) - 1;
  const int exponent = biased - kDoubleBias;
  if (exponent > bias) return sign | exp_all_ones;  // beyond the largest finite value

  const uint64_t significand = fraction | (uint64_t{1} << kDoubleMantissaBits);
  const int min_normal_exponent = 1 - bias;
  // Normal results keep the implicit bit and take the exponent through the addition below;
  // subnormal results are the significand scaled to units of the smallest subnormal.
  if (exponent >= min_normal_exponent) {
    const uint64_t rounded = shift_right_rounding(significand, kDoubleMantissaBits - mant_bits);
    const uint64_t encoded =
        (static_cast<uint64_t>(exponent + bias - 1) << mant_bits) + rounded;  // implicit bit adds 1
    if (encoded >= exp_all_ones) return sign | exp_all_ones;
    return sign | static_cast<uint16_t>(encoded);
  }
  const int shift = kDoubleMantissaBits - mant_bits + (min_normal_exponent - exponent);
  return sign | static_cast<uint16_t>(shift_right_rounding(significand, shift));
}

double widen(uint16_t bits, int exp_bits, int mant_bits) {
  const bool negative = (bits >> (exp_bits + mant_bits)) & 1;
  const int biased = (bits >> mant_bits) & ((1 << exp_bits) - 1);
  const uint64_t fraction = bits & ((1u << mant_bits) - 1);
  const int bias = (1 << (exp_bits - 1)) - 1;
  uint64_t out = static_cast<uint64_t>(negative) << 63;
  if (biased == (1 << exp_bits) - 1) {
    out |= uint64_t{0x7FF} << kDoubleMantissaBits;
    out |= fraction << (kDoubleMantissaBits - mant_bits);
  } else if (biased == 0) {
    if (fraction == 0) {
      double zero;
      std::memcpy(&zero, &out, sizeof zero);
      return zero;
    }
    // Subnormal: fraction * 2^(1 - bias - mant_bits), exact in double.
    const double magnitude = static_cast<double>(fraction) * std::ldexp(1.0, 1 - bias - mant_bits);
    return negative ? -magnitude : magnitude;
  } else {
    out |= static_cast<uint64_t>(biased - bias + kDoubleBias) << kDoubleMantissaBits;
    out |= fraction << (kDoubleMantissaBits - mant_bits);
  }
  double result;
  std::memcpy(&result, &out, sizeof result);
  return result;
}

}  // namespace

uint16_t double_to_half_bits(double value) noexcept { return narrow_double(value, 5, 10); }
uint16_t double_to_bfloat16_bits(double value) noexcept { return narrow_double(value, 8, 7); }
double half_bits_to_double(uint16_t bits) noexcept { return widen(bits, 5, 10); }
double bfloat16_bits_to_double(uint16_t bits) noexcept { return widen(bits, 8, 7); }

}  // namespace ndbuf
