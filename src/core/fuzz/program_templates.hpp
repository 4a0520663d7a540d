// Program templates for program_exec_fuzz.cpp: each builds the text of one @main from fuzz
// bytes, with shapes and attributes picked near the boundaries where sizes overflow (0, 1,
// 2^31, 2^32, 2^62, INT64_MAX) and declared result types that may or may not be the right ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ndbuf::fuzz {

// Reads the fuzz bytes as choices; past the end every choice is 0.
class Picker {
 public:
  Picker(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  size_t used() const { return pos_; }
  int pick(int n) { return byte() % n; }
  // 0..n (at most 255), 0 for negative n.
  int64_t upto(int64_t n) { return n <= 0 ? 0 : byte() % (n < 255 ? n + 1 : 256); }
  // Half the time 0..7, otherwise a boundary value (or one next to it).
  int64_t number() {
    static const int64_t kBoundary[] = {0,
                                        1,
                                        2,
                                        -1,
                                        -2,
                                        INT64_C(2147483647),
                                        INT64_C(2147483648),
                                        INT64_C(4294967295),
                                        INT64_C(4294967296),
                                        INT64_C(4294967297),
                                        INT64_C(4611686018427387904),
                                        INT64_C(4611686018427387905),
                                        INT64_MAX,
                                        INT64_MAX - 1,
                                        INT64_MIN,
                                        INT64_C(-2147483648)};
    const uint8_t b = byte();
    if (b < 128) return b % 8;
    return kBoundary[b % (sizeof(kBoundary) / sizeof(kBoundary[0]))];
  }
  // A dimension: mostly 0..4, sometimes a boundary value (huge shapes compile, never run).
  int64_t dim() {
    const uint8_t b = byte();
    if (b < 232) return b % 5;
    const int64_t n = number();
    return n == INT64_MIN ? INT64_MAX : (n < 0 ? -n : n);
  }
  std::vector<int64_t> shape(int max_rank) {
    std::vector<int64_t> s(static_cast<size_t>(pick(max_rank + 1)));
    for (int64_t& d : s) d = dim();
    return s;
  }
  std::string dtype() {
    static const char* const kTypes[] = {"f32", "i32",  "i64",  "f64",          "i1",
                                         "ui8", "i8",   "f16",  "bf16",         "ui32",
                                         "i16", "ui64", "ui16", "complex<f32>", "complex<f64>"};
    return kTypes[pick(sizeof(kTypes) / sizeof(kTypes[0]))];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

inline std::string join(const std::vector<int64_t>& v, const char* sep) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) s += (k ? sep : "") + std::to_string(v[k]);
  return s;
}

inline std::string tensor(const std::vector<int64_t>& shape, const std::string& dtype) {
  return "tensor<" + join(shape, "x") + (shape.empty() ? "" : "x") + dtype + ">";
}

inline std::string ints(const std::vector<int64_t>& v) {
  return "array<i64" + std::string(v.empty() ? "" : ": ") + join(v, ", ") + ">";
}

// `n` numbers (boundary-biased) or, when `picker` says so, small in-range ones.
inline std::vector<int64_t> numbers(Picker& p, size_t n) {
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = p.number();
  return v;
}

// The declared result shape: the right one or (a quarter of the time) a picked one.
inline std::vector<int64_t> declared(Picker& p, const std::vector<int64_t>& right) {
  if (p.pick(4) != 0) return right;
  std::vector<int64_t> s = right;
  if (p.pick(2) == 0) s.push_back(p.dim());
  for (int64_t& d : s) d = p.pick(2) ? p.dim() : d;
  return s;
}

// A two-argument region over 0-d `dtype`: a recognised body (add, maximum) or one the kernels
// must call back (multiply then add).
inline std::string body(Picker& p, const std::string& dtype, int args = 2) {
  const std::string t = "tensor<" + dtype + ">";
  std::string head = "^bb0(";
  for (int k = 0; k < args; ++k) {
    head += (k ? ", %b" : "%b") + std::to_string(k) + ": " + t;
  }
  head += "):\n";
  if (args < 2) return "({\n" + head + "  stablehlo.return %b0 : " + t + "\n})";
  switch (p.pick(3)) {
    case 0:
      return "({\n" + head + "  %s = stablehlo.add %b0, %b1 : " + t +
             "\n  stablehlo.return %s : " + t + "\n})";
    case 1:
      return "({\n" + head + "  %s = stablehlo.maximum %b0, %b1 : " + t +
             "\n  stablehlo.return %s : " + t + "\n})";
    default:
      return "({\n" + head + "  %m = stablehlo.multiply %b0, %b1 : " + t +
             "\n  %s = stablehlo.add %m, %b1 : " + t + "\n  stablehlo.return %s : " + t + "\n})";
  }
}

// A comparator over `args` 0-d arguments of `arg_type` (sometimes not 0-d, sometimes not two).
inline std::string comparator(Picker& p, const std::string& dtype) {
  const int args = p.pick(8) == 0 ? p.pick(4) : 2;
  const std::string t = p.pick(8) == 0 ? tensor({p.dim()}, dtype) : "tensor<" + dtype + ">";
  std::string head = "^bb0(";
  for (int k = 0; k < args; ++k) head += (k ? ", %c" : "%c") + std::to_string(k) + ": " + t;
  head += "):\n";
  if (args < 2) {
    return "({\n" + head + "  %t = stablehlo.constant dense<true> : tensor<i1>\n" +
           "  stablehlo.return %t : tensor<i1>\n})";
  }
  const char* dir = p.pick(2) ? "LT" : "GT";
  return "({\n" + head + "  %t = stablehlo.compare " + dir + ", %c0, %c1 : (" + t + ", " + t +
         ") -> tensor<i1>\n  stablehlo.return %t : tensor<i1>\n})";
}

inline std::string program(const std::vector<std::string>& args, const std::string& body_text,
                           const std::vector<std::string>& results) {
  std::string s = "func.func @main(";
  for (size_t k = 0; k < args.size(); ++k) {
    s += (k ? ", %a" : "%a") + std::to_string(k) + ": " + args[k];
  }
  std::string types, names;
  for (size_t k = 0; k < results.size(); ++k) {
    types += (k ? ", " : "") + results[k];
    names += (k ? ", %r" : "%r") + std::to_string(k);
  }
  return s + ") -> (" + types + ") {\n" + body_text + "  return " + names + " : " + types + "\n}\n";
}

}  // namespace ndbuf::fuzz
