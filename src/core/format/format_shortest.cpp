// Shortest round-trip decimal text of floats, in positional notation.
#include "ndbuf/format/format_shortest.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace ndbuf {
namespace {

// A finite non-zero value as digits d1 d2 ... dn and the exponent of d1 (d1.d2...dn x 10^e).
struct Decimal {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

// Parses the scientific form std::to_chars writes: "-d.ddde+XX" (the point is optional).
Decimal parse_scientific(const char* first, const char* last) {
  Decimal d;
  if (first < last && *first == '-') {
    d.negative = true;
    ++first;
  }
  const char* e = first;
  while (e < last && *e != 'e') ++e;
  for (const char* p = first; p < e; ++p) {
    if (*p != '.') d.digits.push_back(*p);
  }
  if (e < last) d.exponent = std::atoi(std::string(e + 1, last).c_str());
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// The magnitude of `d` as text from_chars and strtod read.
std::string scientific_text(const Decimal& d) {
  std::string text(1, d.digits[0]);
  if (d.digits.size() > 1) text += "." + d.digits.substr(1);
  text += "e" + std::to_string(d.exponent);
  return text;
}

// Writes |value| (finite, non-zero) with `precision` digits after the point in scientific form.
Decimal scientific(double value, int precision) {
  char buf[840];
  const auto result = std::to_chars(buf, buf + sizeof buf, std::fabs(value),
                                    std::chars_format::scientific, precision);
  return parse_scientific(buf, result.ptr);
}

// True when |value| lies exactly halfway between `d` and the next decimal with as many digits
// above it: its exact expansion is d's digits followed by a 5 and nothing else.
bool is_tie_below(double value, const Decimal& d) {
  const int n = static_cast<int>(d.digits.size());
  // Cheap filter first: rounded to n + 1 digits the value must end in 5.
  const Decimal near = scientific(value, n);
  if (near.exponent != d.exponent || near.digits.size() != static_cast<size_t>(n + 1) ||
      near.digits.back() != '5') {
    return false;
  }
  // Every double has an exact expansion of at most 767 significant digits.
  const Decimal exact = scientific(value, 800);
  return exact.exponent == d.exponent && exact.digits.size() == static_cast<size_t>(n + 1) &&
         exact.digits.compare(0, n, d.digits) == 0 && exact.digits[n] == '5';
}

// d plus one unit in its last digit (9.99 -> 10.0, written as "1" with exponent + 1).
Decimal next_up(Decimal d) {
  int k = static_cast<int>(d.digits.size()) - 1;
  while (k >= 0 && d.digits[k] == '9') d.digits[k--] = '0';
  if (k < 0) {
    d.digits.insert(d.digits.begin(), '1');
    d.exponent += 1;
  } else {
    d.digits[k] += 1;
  }
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// Rust breaks an exact tie between two shortest candidates away from zero, std::to_chars
// toward the even digit: move up where the two differ and the upper candidate reads back.
template <class ReadsBack>
void break_tie_away_from_zero(double value, Decimal& d, ReadsBack reads_back) {
  if (!is_tie_below(value, d)) return;
  Decimal up = next_up(d);
  if (reads_back(scientific_text(up))) d = std::move(up);
}

template <class T>
bool reads_back_as(const std::string& text, T value) {
  T parsed{};
  const auto result = std::from_chars(text.data(), text.data() + text.size(), parsed);
  return result.ec == std::errc() && parsed == value;
}

// Specials shared by every real type; returns false for finite non-zero values.
bool append_special(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "inf" : "-inf";
  } else if (value == 0) {
    out += std::signbit(value) ? "-0" : "0";
  } else {
    return false;
  }
  return true;
}

template <class T>
void append_ieee(std::string& out, T value) {
  if (append_special(out, static_cast<double>(value))) return;
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  Decimal d = parse_scientific(buf, result.ptr);
  break_tie_away_from_zero(static_cast<double>(value), d, [&](const std::string& text) {
    return reads_back_as<T>(text, value < 0 ? -value : value);
  });
  append_positional(out, d.negative, d.digits, d.exponent);
}

// f16, bf16 and the 8-bit floats: the shortest of the nearest p-digit decimals (p = 1, 2, ...)
// that reads back to the same bits. A short decimal never lies so close to a rounding boundary
// of these 11-bit and narrower formats that reading it through double first could change the
// result.
template <class H, class FromDouble>
void append_small_float(std::string& out, H value, FromDouble from_double) {
  const double v = to_double(value);
  if (append_special(out, v)) return;
  const auto reads_back = [&](const std::string& text) {
    return from_double(std::fabs(std::strtod(text.c_str(), nullptr))).bits ==
           from_double(std::fabs(v)).bits;
  };
  Decimal d;
  for (int precision = 0; precision < 17; ++precision) {
    d = scientific(v, precision);
    if (reads_back(scientific_text(d))) break;
  }
  break_tie_away_from_zero(v, d, reads_back);
  append_positional(out, std::signbit(v), d.digits, d.exponent);
}

template <class T>
std::string format_complex(std::complex<T> value) {
  std::string out;
  append_shortest(out, value.real());
  const T im = value.imag();
  if (std::signbit(im) && !std::isnan(im)) {
    out += '-';
    append_shortest(out, -im);
  } else {
    out += '+';
    append_shortest(out, im);
  }
  out += 'i';
  return out;
}

}  // namespace

void append_positional(std::string& out, bool negative, const std::string& digits, int exponent) {
  if (negative) out += '-';
  const int n = static_cast<int>(digits.size());
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
  } else if (exponent >= n - 1) {
    out += digits;
    out.append(static_cast<size_t>(exponent - (n - 1)), '0');
  } else {
    out.append(digits, 0, static_cast<size_t>(exponent) + 1);
    out += '.';
    out.append(digits, static_cast<size_t>(exponent) + 1, std::string::npos);
  }
}

void append_shortest(std::string& out, double value) { append_ieee(out, value); }
void append_shortest(std::string& out, float value) { append_ieee(out, value); }

std::string format_shortest(double value) {
  std::string out;
  append_ieee(out, value);
  return out;
}

std::string format_shortest(float value) {
  std::string out;
  append_ieee(out, value);
  return out;
}

std::string format_shortest(Half value) {
  std::string out;
  append_small_float(out, value, to_half);
  return out;
}

std::string format_shortest(BFloat16 value) {
  std::string out;
  append_small_float(out, value, to_bfloat16);
  return out;
}

std::string format_shortest(Float8E4M3FN value) {
  std::string out;
  append_small_float(out, value, to_float8_e4m3fn);
  return out;
}

std::string format_shortest(Float8E5M2 value) {
  std::string out;
  append_small_float(out, value, to_float8_e5m2);
  return out;
}

std::string format_shortest(std::complex<float> value) { return format_complex(value); }
std::string format_shortest(std::complex<double> value) { return format_complex(value); }

}  // namespace ndbuf
