// Shortest round-trip decimal text of floating-point values, in the element's own type and
// always in positional notation, as Rust prints floats with `{}` (the style of ndarray and of
// harmonium's HArray printer):
//
//   - the fewest significant digits that read back to the same value of that type
//     (f32 1/3 is "0.33333334", f64 1/3 "0.3333333333333333");
//   - of several shortest candidates the one nearest the exact value; an exact tie goes to the
//     candidate farther from zero (f32 2097152.25 is "2097152.3");
//   - never an exponent: 1e10 is "10000000000", 1e-7 "0.0000001";
//   - whole values without ".0"; "NaN", "inf", "-inf", "-0";
//   - complex values as "1+2i", "3-4i": the imaginary part's sign comes from its sign bit
//     ("1-0i" for a negative zero), NaN imaginary parts print "+NaN".
#pragma once

#include <complex>
#include <string>

#include "ndbuf/base/half.hpp"
#include "ndbuf/base/minifloat.hpp"

namespace ndbuf {

std::string format_shortest(double value);
std::string format_shortest(float value);
std::string format_shortest(Half value);
std::string format_shortest(BFloat16 value);
std::string format_shortest(Float8E4M3FN value);
std::string format_shortest(Float8E5M2 value);
std::string format_shortest(std::complex<float> value);
std::string format_shortest(std::complex<double> value);

// Appends the text to `out` (the printer's hot path: no temporary strings).
void append_shortest(std::string& out, double value);
void append_shortest(std::string& out, float value);

// Positional notation of a decimal "0.d1 d2 ... dn x 10^(exponent + 1)", i.e. the digits of a
// scientific form d1.d2...dn e`exponent` (no leading zeros in `digits`, which is non-empty).
void append_positional(std::string& out, bool negative, const std::string& digits, int exponent);

}  // namespace ndbuf
