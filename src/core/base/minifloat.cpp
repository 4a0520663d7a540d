// The small float formats: one encoder and one decoder driven by the format's parameters.
#include "ndbuf/base/minifloat.hpp"

#include <cmath>
#include <limits>

namespace ndbuf {
namespace {

int magnitude_bits(const MinifloatFormat& f) { return f.exponent_bits + f.mantissa_bits; }
uint32_t sign_bit(const MinifloatFormat& f) {
  return f.has_sign ? uint32_t{1} << magnitude_bits(f) : 0;
}
uint32_t all_ones(int bits) { return (uint32_t{1} << bits) - 1; }

// The magnitude code of the largest finite value.
uint32_t max_finite_code(const MinifloatFormat& f) {
  const uint32_t top = all_ones(magnitude_bits(f));
  switch (f.specials) {
    case MinifloatSpecials::kIeee:  // the top exponent is all specials
      return top - (all_ones(f.mantissa_bits) + 1);
    case MinifloatSpecials::kNanAllOnes:  // only the all-ones code is NaN
      return top - 1;
    case MinifloatSpecials::kNanNegZero:
    case MinifloatSpecials::kFiniteOnly:
      break;
  }
  return top;
}

uint8_t nan_code(const MinifloatFormat& f, bool negative) {
  const uint32_t sign = negative ? sign_bit(f) : 0;
  switch (f.specials) {
    case MinifloatSpecials::kIeee:  // quiet NaN: top exponent, leading mantissa bit
      return static_cast<uint8_t>(sign | (all_ones(f.exponent_bits) << f.mantissa_bits) |
                                  (uint32_t{1} << (f.mantissa_bits - 1)));
    case MinifloatSpecials::kNanAllOnes:
      return static_cast<uint8_t>(sign | all_ones(magnitude_bits(f)));
    case MinifloatSpecials::kNanNegZero:
      return static_cast<uint8_t>(sign_bit(f));
    case MinifloatSpecials::kFiniteOnly:
      break;
  }
  return 0;
}

// What a magnitude beyond the largest finite value (Inf included) becomes.
uint8_t overflow_code(const MinifloatFormat& f, bool negative) {
  const uint32_t sign = negative ? sign_bit(f) : 0;
  switch (f.specials) {
    case MinifloatSpecials::kIeee:
      return static_cast<uint8_t>(sign | (all_ones(f.exponent_bits) << f.mantissa_bits));
    case MinifloatSpecials::kNanAllOnes:
    case MinifloatSpecials::kNanNegZero:
      return nan_code(f, negative);
    case MinifloatSpecials::kFiniteOnly:
      break;
  }
  return static_cast<uint8_t>(sign | max_finite_code(f));
}

// Rounds an integer-valued-or-not n >= 0 (exact in double) to an integer, ties to even.
double round_half_even(double n) {
  const double floor = std::floor(n);
  const double rest = n - floor;
  if (rest > 0.5 || (rest == 0.5 && std::fmod(floor, 2.0) != 0)) return floor + 1;
  return floor;
}

// The magnitude code of finite a > 0 rounded to the format on an unbounded exponent range
// (the caller checks it against the largest finite code).
uint64_t round_magnitude(double a, const MinifloatFormat& f) {
  const int m = f.mantissa_bits;
  const bool exponent_only = !f.has_sign && m == 0;
  const int emin = exponent_only ? -f.bias : 1 - f.bias;  // smallest normal exponent
  int e = 0;
  std::frexp(a, &e);
  e -= 1;                                   // a = 1.f * 2^e
  if (exponent_only && e < emin) return 0;  // no zero, no subnormals: the smallest value
  const int quantum = (e >= emin ? e : emin) - m;
  double r = round_half_even(std::ldexp(a, -quantum));  // exact scaling by a power of two
  int q = quantum;
  const double one = std::ldexp(1.0, m);
  if (r >= 2 * one) {  // rounded up into the next binade
    r /= 2;
    ++q;
  }
  if (r < one) return static_cast<uint64_t>(r);  // subnormal (or zero)
  const int64_t biased = static_cast<int64_t>(q) + m + f.bias;
  if (biased >= (int64_t{1} << 20)) return uint64_t{1} << 40;  // far beyond any format
  return (static_cast<uint64_t>(biased) << m) | static_cast<uint64_t>(r - one);
}

}  // namespace

uint8_t minifloat_from_double(double value, const MinifloatFormat& f) noexcept {
  const bool negative = std::signbit(value);
  if (std::isnan(value)) return nan_code(f, negative);
  if (!f.has_sign && negative && value != 0) return nan_code(f, false);
  if (std::isinf(value)) return overflow_code(f, negative);
  const bool keeps_negative_zero = f.has_sign && f.specials != MinifloatSpecials::kNanNegZero;
  if (value == 0) {
    return static_cast<uint8_t>(negative && keeps_negative_zero ? sign_bit(f) : 0);
  }
  const uint64_t code = round_magnitude(std::fabs(value), f);
  if (code > max_finite_code(f)) return overflow_code(f, negative);
  if (code == 0 && !keeps_negative_zero) return 0;
  return static_cast<uint8_t>((negative ? sign_bit(f) : 0) | code);
}

double minifloat_to_double(uint8_t bits, const MinifloatFormat& f) noexcept {
  const int m = f.mantissa_bits;
  const uint32_t magnitude = bits & all_ones(magnitude_bits(f));
  const bool negative = (bits & sign_bit(f)) != 0;
  if (minifloat_is_nan(bits, f)) return std::numeric_limits<double>::quiet_NaN();
  const uint32_t exponent = magnitude >> m;
  const uint32_t mantissa = magnitude & all_ones(m);
  double value = 0;
  if (f.specials == MinifloatSpecials::kIeee && exponent == all_ones(f.exponent_bits)) {
    value = std::numeric_limits<double>::infinity();
  } else if (!f.has_sign && m == 0) {  // exponent only: code 0 is 2^-bias
    value = std::ldexp(1.0, static_cast<int>(exponent) - f.bias);
  } else if (exponent == 0) {  // subnormal
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - m);
  } else {
    value = std::ldexp(static_cast<double>(mantissa + (uint32_t{1} << m)),
                       static_cast<int>(exponent) - f.bias - m);
  }
  return negative ? -value : value;
}

double minifloat_max_finite(const MinifloatFormat& f) noexcept {
  return minifloat_to_double(static_cast<uint8_t>(max_finite_code(f)), f);
}

bool minifloat_is_nan(uint8_t bits, const MinifloatFormat& f) noexcept {
  const uint32_t width = all_ones(magnitude_bits(f) + (f.has_sign ? 1 : 0));
  const uint32_t code = bits & width;
  const uint32_t magnitude = code & all_ones(magnitude_bits(f));
  switch (f.specials) {
    case MinifloatSpecials::kIeee:
      return (magnitude >> f.mantissa_bits) == all_ones(f.exponent_bits) &&
             (magnitude & all_ones(f.mantissa_bits)) != 0;
    case MinifloatSpecials::kNanAllOnes:
      return magnitude == all_ones(magnitude_bits(f));
    case MinifloatSpecials::kNanNegZero:
      return code == sign_bit(f);
    case MinifloatSpecials::kFiniteOnly:
      break;
  }
  return false;
}

namespace {
struct DecodeTable {
  std::array<double, 256> values;
  explicit DecodeTable(MinifloatKind kind) : values() {
    for (int code = 0; code < 256; ++code) {
      values[code] = minifloat_to_double(static_cast<uint8_t>(code), minifloat_format(kind));
    }
  }
};
}  // namespace

double float8_e4m3fn_to_double(uint8_t bits) noexcept {
  static const DecodeTable table(MinifloatKind::kF8E4M3FN);
  return table.values[bits];
}

double float8_e5m2_to_double(uint8_t bits) noexcept {
  static const DecodeTable table(MinifloatKind::kF8E5M2);
  return table.values[bits];
}

}  // namespace ndbuf
