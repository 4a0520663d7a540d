// The text of single printed cells (SPEC section 2.7): the integer 6-digit rule, and the
// float modes that one printed matrix shares. Pure functions over values, so that every rule
// is testable without a tensor; format_buffer.hpp lays the cells out.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace ndbuf {

// How the floats of one printed matrix are written. Non-finite values print as nan, inf, -inf
// in every mode.
enum class FloatMode : uint8_t {
  kInteger,     // every finite value is whole: the integer 6-digit rule
  kFixed,       // %.4f
  kScientific,  // %.4e
  kScaled,      // a "1e-07 *" line once per matrix, cells %.4f of v / 10^exponent
};

struct FloatFormat {
  FloatMode mode = FloatMode::kInteger;
  int exponent = 0;  // kScaled only

  bool operator==(const FloatFormat& other) const {
    return mode == other.mode && exponent == other.exponent;
  }
  bool operator!=(const FloatFormat& other) const { return !(*this == other); }
};

// Gathers, from the printed elements only, what choosing the mode of a matrix needs.
class FloatStats {
 public:
  // Counts one printed element (a complex element counts once, however many parts it has).
  void add_element() noexcept { ++elements_; }
  // Adds one real value: a float element, or one part of a complex element.
  void add_value(double value) noexcept;

  // The five rules, in order:
  //  1. every finite value whole (or none finite)          -> kInteger
  //  2. min and max non-zero |v| inside (1e-4, 1e6)        -> kFixed
  //  3. a single printed element                           -> kScientific
  //  4. min and max non-zero |v| share floor(log10(|v|))   -> kScaled with that exponent
  //  5. otherwise                                          -> kScientific
  FloatFormat choose() const noexcept;

 private:
  int64_t elements_ = 0;
  bool all_whole_ = true;
  double min_abs_ = std::numeric_limits<double>::infinity();
  double max_abs_ = 0.0;
};

// floor(log10(|value|)) for a finite, non-zero value.
int decimal_exponent(double value) noexcept;

// The line printed above a kScaled matrix ("1e-07 *", "1e+12 *"; the exponent has the sign
// of the scale and at least two digits); "" for the other modes.
std::string scale_line(const FloatFormat& format);

// Integers: plain decimal when |v| has at most 6 digits, otherwise %.4e ("1.2346e+06").
void append_integer(std::string& out, int64_t value);
void append_integer(std::string& out, uint64_t value);

// A real value in the given mode. NaN is always "nan" (never "-nan") and negative zero prints
// as zero, as R prints it.
void append_float(std::string& out, double value, const FloatFormat& format);

// "re+imi": both parts in the same mode; the sign between them is the sign of the imaginary
// part ("1-2i", "1+nani", "0-infi").
void append_complex(std::string& out, double re, double im, const FloatFormat& format);

}  // namespace ndbuf
