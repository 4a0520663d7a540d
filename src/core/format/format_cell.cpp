// The text of single printed cells: integer digits and the shared float modes.
#include "ndbuf/format/format_cell.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ndbuf {
namespace {

// Every cell text is short: fixed and scaled cells are below 10^6, whole floats at or above
// 10^6 and large integers go to %.4e (at most "-1.7977e+308").
constexpr size_t kCellBuffer = 64;

// Below this an integer or whole float prints as plain decimal (at most 6 digits).
constexpr double kPlainLimit = 1e6;
constexpr uint64_t kPlainIntegerLimit = 1000000;

// Bounds of the fixed mode: both ends open.
constexpr double kFixedLow = 1e-4;
constexpr double kFixedHigh = 1e6;

// Appends what snprintf wrote into `buffer` (n as snprintf returned it).
void append_written(std::string& out, const char* buffer, int n, size_t capacity) {
  if (n > 0) out.append(buffer, std::min(static_cast<size_t>(n), capacity - 1));
}

void append_printf_double(std::string& out, const char* format, double value) {
  char buffer[kCellBuffer];
  append_written(out, buffer, std::snprintf(buffer, sizeof buffer, format, value), sizeof buffer);
}

// %.4e of an integer. long double holds every 64-bit integer exactly where it is wider than
// double (x86, aarch64 Linux); elsewhere the double nearest the value is rounded, which only
// differs at exact decimal ties beyond 2^53.
template <class Int>
void append_integer_scientific(std::string& out, Int value) {
  char buffer[kCellBuffer];
  append_written(out, buffer,
                 std::snprintf(buffer, sizeof buffer, "%.4Le", static_cast<long double>(value)),
                 sizeof buffer);
}

// value / 10^exponent without overflowing or flushing 10^exponent to zero at the ends of the
// double range (exponents down to -324 and up to 308).
double scale_down(double value, int exponent) {
  constexpr int kStep = 300;
  if (exponent < -kStep) return (value * 1e300) / std::pow(10.0, exponent + kStep);
  if (exponent > kStep) return (value / 1e300) / std::pow(10.0, exponent - kStep);
  return value / std::pow(10.0, exponent);
}

}  // namespace

void FloatStats::add_value(double value) noexcept {
  if (!std::isfinite(value)) return;
  if (value != std::trunc(value)) all_whole_ = false;
  const double magnitude = std::fabs(value);
  if (magnitude > 0.0) {
    if (magnitude < min_abs_) min_abs_ = magnitude;
    if (magnitude > max_abs_) max_abs_ = magnitude;
  }
}

FloatFormat FloatStats::choose() const noexcept {
  // A value that is not whole is finite and non-zero, so min_abs_ and max_abs_ are set below.
  if (all_whole_) return {FloatMode::kInteger, 0};
  if (min_abs_ > kFixedLow && max_abs_ < kFixedHigh) return {FloatMode::kFixed, 0};
  if (elements_ == 1) return {FloatMode::kScientific, 0};
  const int low = decimal_exponent(min_abs_);
  if (low == decimal_exponent(max_abs_)) return {FloatMode::kScaled, low};
  return {FloatMode::kScientific, 0};
}

int decimal_exponent(double value) noexcept {
  // log10 rather than an exact decimal exponent: a decimal literal such as 1e-7, whose double
  // lies a hair below 10^-7, gets exponent -7 (log10 rounds to exactly -7), as a user would expect.
  return static_cast<int>(std::floor(std::log10(std::fabs(value))));
}

std::string scale_line(const FloatFormat& format) {
  if (format.mode != FloatMode::kScaled) return std::string();
  char buffer[kCellBuffer];
  std::string out;
  append_written(out, buffer, std::snprintf(buffer, sizeof buffer, "1e%+03d *", format.exponent),
                 sizeof buffer);
  return out;
}

void append_integer(std::string& out, int64_t value) {
  const uint64_t magnitude =
      value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (magnitude < kPlainIntegerLimit) {
    out += std::to_string(value);
  } else {
    append_integer_scientific(out, value);
  }
}

void append_integer(std::string& out, uint64_t value) {
  if (value < kPlainIntegerLimit) {
    out += std::to_string(value);
  } else {
    append_integer_scientific(out, value);
  }
}

void append_float(std::string& out, double value, const FloatFormat& format) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "inf" : "-inf";
    return;
  }
  if (value == 0.0) value = 0.0;  // -0 prints as 0
  switch (format.mode) {
    case FloatMode::kInteger:
      append_printf_double(out, std::fabs(value) < kPlainLimit ? "%.0f" : "%.4e", value);
      return;
    case FloatMode::kFixed:
      append_printf_double(out, "%.4f", value);
      return;
    case FloatMode::kScientific:
      append_printf_double(out, "%.4e", value);
      return;
    case FloatMode::kScaled:
      append_printf_double(out, "%.4f", scale_down(value, format.exponent));
      return;
  }
}

void append_complex(std::string& out, double re, double im, const FloatFormat& format) {
  append_float(out, re, format);
  if (!std::isnan(im) && im < 0) {
    out += '-';
    append_float(out, -im, format);
  } else {
    out += '+';
    append_float(out, im, format);
  }
  out += 'i';
}

}  // namespace ndbuf
