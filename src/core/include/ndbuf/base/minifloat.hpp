// The small float formats of StableHLO (8, 6 and 4 bits: f8E4M3FN, f8E5M2, f8E4M3FNUZ, ...,
// f6E2M3FN, f4E2M1FN, f8E8M0FNU) as one parameterised format: exponent and mantissa widths,
// bias, and which special values exist. One encoder and one decoder serve them all; each
// value is held in the low bits of one byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ndbuf {

// What the format does with its top codes.
enum class MinifloatSpecials : uint8_t {
  kIeee,        // top exponent holds +-Inf (mantissa 0) and NaNs, as in IEEE 754
  kNanAllOnes,  // no Inf; the code with every magnitude bit set is NaN ("FN")
  kNanNegZero,  // no Inf, no -0; the sign bit alone is the one NaN ("FNUZ")
  kFiniteOnly,  // no Inf, no NaN (the OCP f6 / f4 types)
};

struct MinifloatFormat {
  std::string_view name;  // MLIR spelling: "f8E4M3FN"
  int exponent_bits;
  int mantissa_bits;
  int bias;
  MinifloatSpecials specials;
  bool has_sign;  // false only for f8E8M0FNU, which is also exponent-only (no zero)
};

enum class MinifloatKind : uint8_t {
  kF8E4M3FN,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FNUZ,
  kF8E4M3B11FNUZ,
  kF8E5M2FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF6E2M3FN,
  kF6E3M2FN,
  kF4E2M1FN,
};
inline constexpr size_t kNumMinifloatKinds = 11;

inline constexpr std::array<MinifloatFormat, kNumMinifloatKinds> kMinifloatFormats = {{
    {"f8E4M3FN", 4, 3, 7, MinifloatSpecials::kNanAllOnes, true},
    {"f8E5M2", 5, 2, 15, MinifloatSpecials::kIeee, true},
    {"f8E4M3", 4, 3, 7, MinifloatSpecials::kIeee, true},
    {"f8E4M3FNUZ", 4, 3, 8, MinifloatSpecials::kNanNegZero, true},
    {"f8E4M3B11FNUZ", 4, 3, 11, MinifloatSpecials::kNanNegZero, true},
    {"f8E5M2FNUZ", 5, 2, 16, MinifloatSpecials::kNanNegZero, true},
    {"f8E3M4", 3, 4, 3, MinifloatSpecials::kIeee, true},
    {"f8E8M0FNU", 8, 0, 127, MinifloatSpecials::kNanAllOnes, false},
    {"f6E2M3FN", 2, 3, 1, MinifloatSpecials::kFiniteOnly, true},
    {"f6E3M2FN", 3, 2, 3, MinifloatSpecials::kFiniteOnly, true},
    {"f4E2M1FN", 2, 1, 1, MinifloatSpecials::kFiniteOnly, true},
}};

constexpr const MinifloatFormat& minifloat_format(MinifloatKind kind) {
  return kMinifloatFormats[static_cast<size_t>(kind)];
}

// Rounds to nearest, ties to even, directly from double. Beyond the largest finite value:
// Inf where the format has one, else NaN where it has one, else the largest finite value
// (saturation, as MLIR's APFloat does for the f6 / f4 types). NaN gives the format's NaN
// (sign kept where it has signed NaNs), or +0 for the formats without NaN. -0 gives +0 where
// the format has no -0. f8E8M0FNU (powers of two only) takes +-0 to its smallest value 2^-127
// (it has no zero) and negative values to NaN (it has no sign).
uint8_t minifloat_from_double(double value, const MinifloatFormat& format) noexcept;

// Exact. Bits outside the format's width are ignored.
double minifloat_to_double(uint8_t bits, const MinifloatFormat& format) noexcept;

// The largest finite value, and whether `bits` encodes a NaN.
double minifloat_max_finite(const MinifloatFormat& format) noexcept;
bool minifloat_is_nan(uint8_t bits, const MinifloatFormat& format) noexcept;

// The two 8-bit floats that are buffer dtypes: one byte each.
struct Float8E4M3FN {
  uint8_t bits;
};
struct Float8E5M2 {
  uint8_t bits;
};

// A 256-entry table per format makes widening one load.
double float8_e4m3fn_to_double(uint8_t bits) noexcept;
double float8_e5m2_to_double(uint8_t bits) noexcept;

inline Float8E4M3FN to_float8_e4m3fn(double value) noexcept {
  return Float8E4M3FN{minifloat_from_double(value, minifloat_format(MinifloatKind::kF8E4M3FN))};
}
inline Float8E5M2 to_float8_e5m2(double value) noexcept {
  return Float8E5M2{minifloat_from_double(value, minifloat_format(MinifloatKind::kF8E5M2))};
}
inline double to_double(Float8E4M3FN v) noexcept { return float8_e4m3fn_to_double(v.bits); }
inline double to_double(Float8E5M2 v) noexcept { return float8_e5m2_to_double(v.bits); }
inline double to_double_value(Float8E4M3FN v) noexcept { return to_double(v); }
inline double to_double_value(Float8E5M2 v) noexcept { return to_double(v); }

}  // namespace ndbuf
