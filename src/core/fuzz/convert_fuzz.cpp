// libFuzzer target for the conversion kernels: convert_from_r() (R vector -> dtype),
// convert_to_r() (dtype -> R vector), scan_missing() and check_zero_copy_missing(), for every
// dtype and every R source type, over fuzzed values (boundary values, small numbers and raw
// bit patterns) at lengths that cross the kernels' block boundaries.
//
// Every result is checked against an independent model written here:
// - integer dtypes and pred take the value truncated toward zero when it fits, else the
//   first offending position is reported (a ConversionError naming it);
// - float dtypes take the nearest representable value, ties to even, checked against the
//   midpoints of the result's neighbours in exact arithmetic (long double holds every int64
//   and every midpoint of doubles), with overflow to Inf and NaN for missing values;
// - a converted buffer reads back into R's representation as the stored values, counting
//   the values R cannot tell from NA;
// - arbitrary bit patterns of every dtype read back exactly, and floats narrow back to the
//   same bits.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace {

using ndbuf::DType;
using ndbuf::RVectorType;

[[noreturn]] void violated(const char* what, int64_t i) {
  std::fprintf(stderr, "convert_fuzz: invariant violated at element %lld: %s\n",
               static_cast<long long>(i), what);
  __builtin_trap();
}
#define REQUIRE_AT(cond, i) ((cond) ? (void)0 : violated(#cond, (i)))
#define REQUIRE(cond) REQUIRE_AT(cond, -1)

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  template <class T>
  T raw() {
    uint8_t bytes[sizeof(T)] = {};
    for (auto& b : bytes) b = byte();
    T value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
  }
  bool empty() const { return pos_ >= size_; }
  size_t pos() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// ---- fuzzed values ------------------------------------------------------------------------

double next_down(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }

double fuzzed_double(Input& in) {
  static const double kTable[] = {
      0.0,
      -0.0,
      1.0,
      -1.0,
      0.5,
      -0.5,
      0.9999999999999999,
      127.0,
      127.9,
      128.0,
      -128.0,
      -128.9,
      -129.0,
      255.0,
      255.7,
      256.0,
      32767.0,
      32768.0,
      -32768.0,
      -32769.0,
      65535.0,
      65536.0,
      2147483647.0,
      2147483647.5,
      2147483648.0,
      -2147483648.0,
      -2147483648.5,
      -2147483649.0,
      4294967295.0,
      4294967296.0,
      0x1p53,
      0x1p53 + 2,
      0x1p63,
      -0x1p63,
      next_down(0x1p63),
      0x1p64,
      next_down(0x1p64),
      next_down(-0x1p63),
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      ndbuf::r_na_real(),
      65504.0,
      65519.99,
      65520.0,
      0x1p-14,
      0x1p-24,
      0x1p-25,
      0x3p-26,
      0x1.0000000000001p-25,
      3.4028234663852886e38,
      3.4028235677973366e38,
      0x1p128,
      0x1p-149,
      0x1p-150,
      0x1.8p-149,
      std::numeric_limits<double>::min(),
      std::numeric_limits<double>::denorm_min(),
      1.0 + 0x1p-8,
      1.0 + 0x3p-8,
      1.0 + 0x1p-11,
      1.0 + 0x1p-24,
      0x1.fe00000000000p127,
      0x1.ff00000000000p127,
      1e300,
      -1e-300,
  };
  const uint8_t kind = in.byte();
  if (kind < 96) return kTable[kind % (sizeof kTable / sizeof kTable[0])];
  if (kind < 176) return static_cast<int8_t>(in.byte()) + (kind % 4) * 0.25;
  return in.raw<double>();
}

int32_t fuzzed_int32(Input& in) {
  static const int32_t kTable[] = {
      0,         1,
      -1,        ndbuf::kRIntegerNA,
      INT32_MAX, INT32_MIN + 1,
      127,       128,
      -128,      -129,
      255,       256,
      32767,     32768,
      -32768,    -32769,
      65535,     65536,
      2049,      16777217,
  };
  const uint8_t kind = in.byte();
  if (kind < 96) return kTable[kind % (sizeof kTable / sizeof kTable[0])];
  if (kind < 176) return static_cast<int8_t>(in.byte());
  return in.raw<int32_t>();
}

int64_t fuzzed_int64(Input& in) {
  static const int64_t kTable[] = {
      0,
      1,
      -1,
      ndbuf::kRInteger64NA,
      INT64_MAX,
      INT64_MIN + 1,
      INT32_MAX,
      int64_t{1} << 31,
      -(int64_t{1} << 31),
      (int64_t{1} << 32) - 1,
      int64_t{1} << 32,
      int64_t{1} << 53,
      (int64_t{1} << 53) + 1,
      (int64_t{1} << 24) + 1,
      2049,
      65520,
      255,
      256,
      -129,
      (int64_t{1} << 62) + 1,
      INT64_MAX - 1024,
      -(int64_t{1} << 53) - 1,
  };
  const uint8_t kind = in.byte();
  if (kind < 96) return kTable[kind % (sizeof kTable / sizeof kTable[0])];
  if (kind < 176) return static_cast<int8_t>(in.byte());
  return in.raw<int64_t>();
}

// ---- the source vector --------------------------------------------------------------------

struct Source {
  RVectorType type = RVectorType::kDouble;
  std::vector<int32_t> ints;    // logical, integer
  std::vector<int64_t> longs;   // integer64
  std::vector<double> doubles;  // double; complex as re/im pairs
  int64_t length = 0;

  ndbuf::RVectorView view() const {
    const void* data = nullptr;
    switch (type) {
      case RVectorType::kLogical:
      case RVectorType::kInteger:
        data = ints.data();
        break;
      case RVectorType::kInteger64:
        data = longs.data();
        break;
      case RVectorType::kDouble:
      case RVectorType::kComplex:
        data = doubles.data();
        break;
    }
    return {type, data, length};
  }

  // Appends one fuzzed element (a filler zero when `zero`).
  void push(Input& in, bool zero) {
    switch (type) {
      case RVectorType::kLogical: {
        static const int32_t kLogical[] = {0, 1, ndbuf::kRIntegerNA};  // all R can hold
        ints.push_back(zero ? 0 : kLogical[in.byte() % 3]);
        break;
      }
      case RVectorType::kInteger:
        ints.push_back(zero ? 0 : fuzzed_int32(in));
        break;
      case RVectorType::kInteger64:
        longs.push_back(zero ? 0 : fuzzed_int64(in));
        break;
      case RVectorType::kDouble:
        doubles.push_back(zero ? 0.0 : fuzzed_double(in));
        break;
      case RVectorType::kComplex:
        doubles.push_back(zero ? 0.0 : fuzzed_double(in));
        doubles.push_back(zero ? 0.0 : fuzzed_double(in));
        break;
    }
    ++length;
  }
};

// One part of an element as the model sees it: missing (R's NA, or NaN), or an exact value.
struct Exact {
  bool nan;
  long double value;  // exact: long double holds every int32, int64 and double
  double as_double;   // the source double itself (double and complex sources)
  bool missing_int;   // R's NA of an integer type (NA_integer_, NA of integer64, logical NA)
};

Exact exact_at(const Source& s, int64_t i, int part) {
  switch (s.type) {
    case RVectorType::kLogical:
    case RVectorType::kInteger: {
      const int32_t x = s.ints[i];
      if (x == ndbuf::kRIntegerNA) return {true, 0, 0, true};
      return {false, static_cast<long double>(x), static_cast<double>(x), false};
    }
    case RVectorType::kInteger64: {
      const int64_t x = s.longs[i];
      if (x == ndbuf::kRInteger64NA) return {true, 0, 0, true};
      return {false, static_cast<long double>(x), 0, false};
    }
    case RVectorType::kDouble:
    case RVectorType::kComplex:
      break;
  }
  const double d = s.type == RVectorType::kComplex ? s.doubles[2 * i + part] : s.doubles[i];
  return {std::isnan(d), static_cast<long double>(d), d, false};
}

// ---- the model: integer dtypes ----------------------------------------------------------

struct IntRange {
  long double lo, hi;
};

IntRange range_of(DType dtype) {
  return ndbuf::dispatch(dtype, [](auto tag) -> IntRange {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return {static_cast<long double>(std::numeric_limits<T>::min()),
              static_cast<long double>(std::numeric_limits<T>::max())};
    } else {
      return {0, 0};
    }
  });
}

// Whether element i fits an integer dtype (or pred), and the value it must be stored as.
bool integer_fits(const Source& s, int64_t i, DType dtype, long double* stored) {
  const Exact e = exact_at(s, i, 0);
  if (e.nan) return false;
  if (s.type == RVectorType::kLogical) {
    *stored = e.value != 0 ? 1 : 0;
    return true;
  }
  const long double v = s.type == RVectorType::kDouble ? std::truncl(e.value) : e.value;
  if (std::isinf(v)) return false;
  if (dtype == DType::kPred) {
    // pred takes exactly 0 and 1: 0.5 does not truncate to 0.
    *stored = e.value;
    return e.value == 0 || e.value == 1;
  }
  const IntRange r = range_of(dtype);
  *stored = v;
  return v >= r.lo && v <= r.hi;
}

// ---- the model: float formats ------------------------------------------------------------

struct Format {
  int exp_bits;
  int mant_bits;
  uint64_t inf_bits() const { return ((uint64_t{1} << exp_bits) - 1) << mant_bits; }
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  // The magnitude encoded by `m`; the encoding of Inf stands for 2^(emax + 1), the value
  // the next binade would start at (so the midpoint below it is the overflow threshold).
  long double magnitude(uint64_t m) const {
    const uint64_t exp = m >> mant_bits;
    const uint64_t frac = m & ((uint64_t{1} << mant_bits) - 1);
    if (exp == 0) return std::ldexp(static_cast<long double>(frac), 1 - bias() - mant_bits);
    if (m >= inf_bits()) return std::ldexp(1.0L, bias() + 1);
    return std::ldexp(static_cast<long double>(frac | (uint64_t{1} << mant_bits)),
                      static_cast<int>(exp) - bias() - mant_bits);
  }
  bool is_nan(uint64_t bits) const {
    return (bits & ((uint64_t{1} << (exp_bits + mant_bits)) - 1)) > inf_bits();
  }
  // The value of an encoding, as R reads it back (a double, or NaN).
  long double value(uint64_t bits) const {
    const uint64_t m = bits & ((uint64_t{1} << (exp_bits + mant_bits)) - 1);
    const bool negative = (bits >> (exp_bits + mant_bits)) & 1;
    if (m > inf_bits()) return std::numeric_limits<long double>::quiet_NaN();
    const long double mag =
        m == inf_bits() ? std::numeric_limits<long double>::infinity() : magnitude(m);
    return negative ? -mag : mag;
  }
};

constexpr Format kHalf{5, 10};
constexpr Format kBFloat16{8, 7};
constexpr Format kFloat{8, 23};
constexpr Format kDouble{11, 52};

// `bits` must be the value nearest to `e`, ties to even, with e's sign; NaN for missing.
void check_nearest(const Format& f, uint64_t bits, const Exact& e, int64_t i) {
  if (e.nan) {
    REQUIRE_AT(f.is_nan(bits), i);
    return;
  }
  const uint64_t m = bits & ((uint64_t{1} << (f.exp_bits + f.mant_bits)) - 1);
  const bool negative = (bits >> (f.exp_bits + f.mant_bits)) & 1;
  REQUIRE_AT(m <= f.inf_bits(), i);
  REQUIRE_AT(negative == static_cast<bool>(std::signbit(e.value)), i);
  const long double a = std::fabs(e.value);
  const bool even = (m & 1) == 0;
  if (m > 0) {
    const long double below = (f.magnitude(m - 1) + f.magnitude(m)) / 2;
    REQUIRE_AT(a > below || (a == below && even), i);
  }
  if (m < f.inf_bits()) {
    const long double above = (f.magnitude(m) + f.magnitude(m + 1)) / 2;
    REQUIRE_AT(a < above || (a == above && even), i);
  }
}

template <class T>
uint64_t bits_of(T value) {
  if constexpr (std::is_same_v<T, ndbuf::Half> || std::is_same_v<T, ndbuf::BFloat16>) {
    return value.bits;
  } else if constexpr (sizeof(T) == 4) {
    uint32_t b;
    std::memcpy(&b, &value, sizeof b);
    return b;
  } else {
    uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    return b;
  }
}

template <class T>
constexpr Format format_of() {
  if constexpr (std::is_same_v<T, ndbuf::Half>) return kHalf;
  if constexpr (std::is_same_v<T, ndbuf::BFloat16>) return kBFloat16;
  if constexpr (std::is_same_v<T, float>) return kFloat;
  return kDouble;
}

// ---- checks of convert_from_r ------------------------------------------------------------

template <class T>
void check_element(const Source& s, int64_t src, DType dtype, const T& out, int64_t i) {
  if constexpr (std::is_integral_v<T>) {
    long double stored = 0;
    REQUIRE_AT(integer_fits(s, src, dtype, &stored), i);
    REQUIRE_AT(static_cast<long double>(out) == stored, i);
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    using Part = typename T::value_type;
    const Exact re = exact_at(s, src, 0);
    check_nearest(format_of<Part>(), bits_of(out.real()), re, i);
    if (s.type == RVectorType::kComplex) {
      check_nearest(format_of<Part>(), bits_of(out.imag()), exact_at(s, src, 1), i);
    } else {
      REQUIRE_AT(bits_of(out.imag()) == 0, i);  // +0
    }
    if (std::is_same_v<Part, double> && s.type == RVectorType::kComplex) {
      // c128 from complex is a plain copy: NA and NaN payloads survive.
      REQUIRE_AT(std::memcmp(&out, &s.doubles[2 * src], sizeof out) == 0, i);
    }
  } else {
    const Exact e = exact_at(s, src, 0);
    check_nearest(format_of<T>(), bits_of(out), e, i);
    if constexpr (std::is_same_v<T, double>) {
      if (s.type == RVectorType::kDouble) {
        REQUIRE_AT(std::memcmp(&out, &s.doubles[src], sizeof out) == 0, i);
      }
    }
  }
}

// The first element (below `converted`) the model rejects, or -1.
int64_t first_rejected(const Source& s, DType dtype, int64_t converted) {
  if (!ndbuf::is_integer(dtype) && dtype != DType::kPred) return -1;
  for (int64_t i = 0; i < converted; ++i) {
    long double stored;
    if (!integer_fits(s, i, dtype, &stored)) return i;
  }
  return -1;
}

size_t r_item_size(DType dtype) {
  switch (ndbuf::r_vector_type_for(dtype)) {
    case RVectorType::kLogical:
    case RVectorType::kInteger:
      return 4;
    case RVectorType::kComplex:
      return 16;
    case RVectorType::kDouble:
    case RVectorType::kInteger64:
      break;
  }
  return 8;
}

// convert_to_r() of `count` elements at `in`: every value read back as R holds it, and the
// count of values R cannot tell from NA.
template <class T>
void check_read_back(DType dtype, const T* in, int64_t count) {
  std::vector<uint64_t> storage((static_cast<size_t>(count) * r_item_size(dtype) + 15) / 8);
  const int64_t ambiguous = ndbuf::convert_to_r(dtype, in, storage.data(), count);
  int64_t expected_ambiguous = 0;
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_integral_v<T>) {
      if (ndbuf::r_vector_type_for(dtype) == RVectorType::kInteger64) {
        const int64_t r = reinterpret_cast<const int64_t*>(storage.data())[i];
        if constexpr (std::is_same_v<T, uint64_t>) {
          const bool too_large = in[i] >= (uint64_t{1} << 63);
          expected_ambiguous += too_large;
          REQUIRE_AT(too_large ? r == ndbuf::kRInteger64NA : r == static_cast<int64_t>(in[i]), i);
        } else {
          expected_ambiguous += static_cast<int64_t>(in[i]) == ndbuf::kRInteger64NA;
          REQUIRE_AT(r == static_cast<int64_t>(in[i]), i);
        }
      } else {
        const int32_t r = reinterpret_cast<const int32_t*>(storage.data())[i];
        if (dtype == DType::kPred) {
          REQUIRE_AT(r == (in[i] != 0 ? 1 : 0), i);
        } else {
          expected_ambiguous += static_cast<int64_t>(in[i]) == ndbuf::kRIntegerNA;
          REQUIRE_AT(r == static_cast<int32_t>(in[i]), i);
        }
      }
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      const double* r = reinterpret_cast<const double*>(storage.data()) + 2 * i;
      using Part = typename T::value_type;
      const long double re = format_of<Part>().value(bits_of(in[i].real()));
      const long double im = format_of<Part>().value(bits_of(in[i].imag()));
      REQUIRE_AT(std::isnan(re) ? std::isnan(r[0]) : r[0] == re, i);
      REQUIRE_AT(std::isnan(im) ? std::isnan(r[1]) : r[1] == im, i);
      REQUIRE_AT(std::signbit(r[0]) == std::signbit(re) || std::isnan(re), i);
    } else {
      const double r = reinterpret_cast<const double*>(storage.data())[i];
      const long double v = format_of<T>().value(bits_of(in[i]));
      REQUIRE_AT(std::isnan(v) ? std::isnan(r) : (r == v && std::signbit(r) == std::signbit(v)), i);
      // Narrowing the read-back value again gives the same bits (NaN stays NaN).
      if constexpr (std::is_same_v<T, ndbuf::Half>) {
        const uint16_t again = ndbuf::double_to_half_bits(r);
        REQUIRE_AT(std::isnan(v) ? kHalf.is_nan(again) : again == in[i].bits, i);
      } else if constexpr (std::is_same_v<T, ndbuf::BFloat16>) {
        const uint16_t again = ndbuf::double_to_bfloat16_bits(r);
        REQUIRE_AT(std::isnan(v) ? kBFloat16.is_nan(again) : again == in[i].bits, i);
      }
    }
  }
  REQUIRE(ambiguous == expected_ambiguous);
}

void check_missing_scan(const Source& s, DType dtype, ndbuf::MissingCheck check) {
  int64_t count = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < s.length; ++i) {
    const bool na = (s.type == RVectorType::kInteger && s.ints[i] == ndbuf::kRIntegerNA) ||
                    (s.type == RVectorType::kInteger64 && s.longs[i] == ndbuf::kRInteger64NA);
    if (na && first < 0) first = i;
    count += na;
  }
  const ndbuf::MissingScan scan = ndbuf::scan_missing(s.view());
  REQUIRE(scan.count == count && scan.first == first);
  const bool zero_copy = ndbuf::is_zero_copy(s.type, dtype);
  REQUIRE(zero_copy == ((s.type == RVectorType::kDouble && dtype == DType::kF64) ||
                        (s.type == RVectorType::kInteger && dtype == DType::kI32) ||
                        (s.type == RVectorType::kInteger64 && dtype == DType::kI64) ||
                        (s.type == RVectorType::kComplex && dtype == DType::kC128)));
  const bool rejects = zero_copy && check == ndbuf::MissingCheck::kError && count > 0;
  try {
    const int64_t reported = ndbuf::check_zero_copy_missing(s.view(), dtype, check);
    REQUIRE(!rejects);
    const bool counted = zero_copy && check != ndbuf::MissingCheck::kIgnore;
    REQUIRE(reported == (counted ? count : 0));
  } catch (const ndbuf::ConversionError& e) {
    REQUIRE(rejects && e.position() == first);
  }
}

template <class T>
void check_conversion(const Source& s, DType dtype, int64_t count) {
  const ndbuf::RVectorView view = s.view();
  std::vector<T> out(static_cast<size_t>(count) + 1);
  const bool complex_to_real = s.type == RVectorType::kComplex && !ndbuf::is_complex(dtype);
  const bool bad_length = view.length != count && view.length != 1;
  const int64_t converted = view.length == 1 ? 1 : count;
  const int64_t bad =
      complex_to_real || bad_length || count == 0 ? -1 : first_rejected(s, dtype, converted);
  try {
    ndbuf::convert_from_r(view, dtype, out.data(), count);
  } catch (const ndbuf::ConversionError& e) {
    REQUIRE(!complex_to_real && !bad_length && bad >= 0 && e.position() == bad);
    REQUIRE(std::string(e.what()).find(" at position " + std::to_string(bad + 1) + " ") !=
            std::string::npos);
    return;
  } catch (const ndbuf::Error& e) {
    REQUIRE(e.kind() == ndbuf::ErrorKind::kInvalidArgument && (complex_to_real || bad_length));
    return;
  }
  REQUIRE(!complex_to_real && !bad_length && bad < 0);
  for (int64_t i = 0; i < count; ++i) check_element(s, view.length == 1 ? 0 : i, dtype, out[i], i);
  check_read_back(dtype, out.data(), count);
}

// Arbitrary bit patterns of `dtype` (the rest of the input) read back into R.
void check_patterns(DType dtype, const uint8_t* bytes, size_t size) {
  ndbuf::dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const size_t count = size / sizeof(T);
    std::vector<T> values(count + 1);
    if (count > 0) std::memcpy(values.data(), bytes, count * sizeof(T));
    check_read_back(dtype, values.data(), static_cast<int64_t>(count));
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  Source s;
  s.type = static_cast<RVectorType>(in.byte() % 5);
  // The model above covers the IEEE-shaped dtypes (the enum's first 15); the 8-bit floats'
  // rules are checked code by code in minifloat_test.cpp and test-f8.R instead.
  constexpr size_t kModelledDTypes = static_cast<size_t>(DType::kC128) + 1;
  const auto dtype = static_cast<DType>(in.byte() % kModelledDTypes);
  const uint8_t flags = in.byte();
  const auto check = static_cast<ndbuf::MissingCheck>(flags % 3);
  const int64_t recycled = in.byte() * 131;
  // Sometimes a run of zeros first, so that the fuzzed values land in later blocks of the
  // kernels (blocks of kBlockElements) and the first offending one must still be found.
  const int mode = flags >> 4;  // 0: plain; rarely one of the special modes below
  if (mode == 1) {
    const int64_t blocks = in.byte() % 3;
    const int64_t zeros = blocks * ndbuf::kBlockElements + in.byte() - 128;
    for (int64_t k = 0; k < zeros; ++k) s.push(in, true);
  }
  const size_t start = in.pos();
  for (int k = 0; k < 1024 && !in.empty(); ++k) s.push(in, false);
  int64_t count = s.length;
  if (mode == 2) count = s.length + 1;               // a length that does not match
  if (mode == 3 && s.length == 1) count = recycled;  // recycling one value
  check_missing_scan(s, dtype, check);
  ndbuf::dispatch(
      dtype, [&](auto tag) { check_conversion<typename decltype(tag)::type>(s, dtype, count); });
  check_patterns(dtype, data + start, size - start);
  return 0;
}
