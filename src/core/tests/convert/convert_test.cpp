// Tests of every strict conversion at its boundaries, NA and NaN included.
#include "ndbuf/convert/convert.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kChunk = int64_t{1} << 14;  // the chunk size of the checked loops
constexpr int32_t kNA = kRIntegerNA;
constexpr int64_t kNA64 = kRInteger64NA;
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double k2p53 = 9007199254740992.0;
const double k2p63 = 9223372036854775808.0;
const double k2p64 = 18446744073709551616.0;

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// ---------------------------------------------------------------------------------------------
// R vectors as the core sees them

RVectorView doubles(const std::vector<double>& v) {
  return {RVectorType::kDouble, v.data(), static_cast<int64_t>(v.size())};
}
RVectorView integers(const std::vector<int32_t>& v) {
  return {RVectorType::kInteger, v.data(), static_cast<int64_t>(v.size())};
}
RVectorView logicals(const std::vector<int32_t>& v) {
  return {RVectorType::kLogical, v.data(), static_cast<int64_t>(v.size())};
}
RVectorView integer64s(const std::vector<int64_t>& v) {
  return {RVectorType::kInteger64, v.data(), static_cast<int64_t>(v.size())};
}
// Re/im pairs.
RVectorView complexes(const std::vector<double>& v) {
  return {RVectorType::kComplex, v.data(), static_cast<int64_t>(v.size() / 2)};
}

// Converts to `count` elements of T (the dtype's element type, or uint16_t for f16/bf16).
template <class T>
std::vector<T> convert(const RVectorView& source, DType dtype, int64_t count) {
  EXPECT_EQ(sizeof(T), itemsize(dtype));
  std::vector<T> out(static_cast<size_t>(count));
  convert_from_r(source, dtype, out.data(), count);
  return out;
}

template <class T>
std::vector<T> convert(const RVectorView& source, DType dtype) {
  return convert<T>(source, dtype, source.length);
}

// The message of a value that `dtype` cannot hold, as the spec words it.
std::string range_text_of(DType dtype) {
  switch (dtype) {
    case DType::kPred:
      return "allowed values 0 and 1";
    case DType::kI8:
      return "range -128 to 127";
    case DType::kI16:
      return "range -32768 to 32767";
    case DType::kI32:
      return "range -2147483648 to 2147483647";
    case DType::kI64:
      return "range -9223372036854775808 to 9223372036854775807";
    case DType::kU8:
      return "range 0 to 255";
    case DType::kU16:
      return "range 0 to 65535";
    case DType::kU32:
      return "range 0 to 4294967295";
    case DType::kU64:
      return "range 0 to 18446744073709551615";
    default:
      break;
  }
  ADD_FAILURE() << "no range for " << dtype_name(dtype);
  return "";
}

std::string value_message(const std::string& value, int64_t position1, DType dtype) {
  return "Value " + value + " at position " + std::to_string(position1) +
         " cannot be represented as " + std::string(dtype_name(dtype)) + " (" +
         range_text_of(dtype) + ")";
}

// Expects convert_from_r to throw a ConversionError with `message` at 0-based `position`.
void expect_rejected(const RVectorView& source, DType dtype, int64_t count,
                     const std::string& message, int64_t position) {
  std::vector<unsigned char> out(static_cast<size_t>(count) * itemsize(dtype) + 1);
  try {
    convert_from_r(source, dtype, out.data(), count);
    ADD_FAILURE() << "expected: " << message;
  } catch (const ConversionError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConversion);
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.position(), position) << message;
  }
}

void expect_rejected(const RVectorView& source, DType dtype, const std::string& message,
                     int64_t position) {
  expect_rejected(source, dtype, source.length, message, position);
}

template <class F>
void expect_error(F f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const ConversionError& e) {
    ADD_FAILURE() << "unexpected ConversionError: " << e.what();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// Whether integer type T holds v (written independently of the core's checks).
template <class T>
bool holds(int64_t v) {
  if (v < 0) return std::is_signed_v<T> && v >= static_cast<int64_t>(std::numeric_limits<T>::min());
  return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
}

// ---------------------------------------------------------------------------------------------
// Boundary tables for every integer dtype, from every R source

template <class Tag>
class IntegerBoundaries : public ::testing::Test {
 protected:
  using T = typename Tag::type;
  static constexpr DType kDType = Tag::value;
  static constexpr T kMin = std::numeric_limits<T>::min();
  static constexpr T kMax = std::numeric_limits<T>::max();
  static constexpr bool kWide = sizeof(T) == 8;

  // Source {1, v, v}: either stores {1, expected, expected} or fails at position 2.
  template <class Src>
  void check(const RVectorView& source, Src v, bool ok, T expected, const std::string& text) {
    SCOPED_TRACE(std::string(dtype_name(kDType)) + " from " + ::testing::PrintToString(v));
    if (ok) {
      const std::vector<T> out = convert<T>(source, kDType);
      ASSERT_EQ(out.size(), 3u);
      EXPECT_EQ(out[0], T{1});
      EXPECT_EQ(out[1], expected);
      EXPECT_EQ(out[2], expected);
    } else {
      expect_rejected(source, kDType, value_message(text, 2, kDType), 1);
    }
  }

  void from_double(double v, bool ok, T expected, const std::string& text) {
    const std::vector<double> data{1.0, v, v};
    check(doubles(data), v, ok, expected, text);
  }
  void from_integer(int32_t v) {
    const std::vector<int32_t> data{1, v, v};
    const bool ok = v != kNA && holds<T>(v);
    check(integers(data), v, ok, ok ? static_cast<T>(v) : T{}, v == kNA ? "NA" : std::to_string(v));
  }
  void from_integer64(int64_t v) {
    const std::vector<int64_t> data{1, v, v};
    const bool ok = v != kNA64 && holds<T>(v);
    check(integer64s(data), v, ok, ok ? static_cast<T>(v) : T{},
          v == kNA64 ? "NA" : std::to_string(v));
  }
};

using IntegerTags =
    ::testing::Types<DTypeTag<DType::kI8>, DTypeTag<DType::kI16>, DTypeTag<DType::kI32>,
                     DTypeTag<DType::kI64>, DTypeTag<DType::kU8>, DTypeTag<DType::kU16>,
                     DTypeTag<DType::kU32>, DTypeTag<DType::kU64>>;
// Names the typed instances by dtype: IntegerBoundaries/ui8.FromDoubleMinMax.
struct DTypeTagNames {
  template <class Tag>
  static std::string GetName(int) {
    return std::string(dtype_name(Tag::value));
  }
};
TYPED_TEST_SUITE(IntegerBoundaries, IntegerTags, DTypeTagNames);

TYPED_TEST(IntegerBoundaries, FromDoubleMinMax) {
  using T = typename TestFixture::T;
  constexpr T lo = TestFixture::kMin;
  constexpr T hi = TestFixture::kMax;
  // The minimum is an exact double for every type (-2^63 included).
  this->from_double(static_cast<double>(lo), true, lo, "");
  if constexpr (!TestFixture::kWide) {
    const auto lo64 = static_cast<int64_t>(lo);
    const auto hi64 = static_cast<int64_t>(hi);
    this->from_double(static_cast<double>(hi), true, hi, "");
    this->from_double(static_cast<double>(hi64 + 1), false, 0, std::to_string(hi64 + 1));
    this->from_double(static_cast<double>(lo64 - 1), false, 0, std::to_string(lo64 - 1));
    // Truncation toward zero happens before the range check.
    this->from_double(static_cast<double>(hi) + 0.5, true, hi, "");
    this->from_double(static_cast<double>(hi) + 0.99, true, hi, "");
    this->from_double(static_cast<double>(lo) - 0.5, true, lo, "");
    this->from_double(static_cast<double>(lo) - 0.99, true, lo, "");
    this->from_double(static_cast<double>(hi64 + 2), false, 0, std::to_string(hi64 + 2));
  } else if constexpr (std::is_signed_v<T>) {
    // 2^63 - 1 is no double; the largest double below 2^63 is 2^63 - 1024.
    this->from_double(std::nextafter(k2p63, 0.0), true, T{9223372036854774784}, "");
    this->from_double(k2p63, false, 0, "9223372036854775808");
    this->from_double(-k2p63 - 2048.0, false, 0, "-9223372036854777856");
  } else {
    this->from_double(std::nextafter(k2p64, 0.0), true, T{18446744073709549568u}, "");
    this->from_double(k2p63, true, T{1} << 63, "");
    this->from_double(k2p64, false, 0, "18446744073709551616");
  }
}

TYPED_TEST(IntegerBoundaries, FromDoubleMissingAndInfinite) {
  this->from_double(r_na_real(), false, 0, "NA");
  this->from_double(kNaN, false, 0, "NaN");
  this->from_double(-kNaN, false, 0, "NaN");
  this->from_double(kInf, false, 0, "Inf");
  this->from_double(-kInf, false, 0, "-Inf");
}

TYPED_TEST(IntegerBoundaries, FromDoubleLargeValues) {
  using T = typename TestFixture::T;
  constexpr bool wide = TestFixture::kWide;
  constexpr bool is_signed = std::is_signed_v<T>;
  this->from_double(k2p53, wide, wide ? T(int64_t{1} << 53) : T{}, "9007199254740992");
  this->from_double(-k2p53, wide && is_signed, wide ? T(-(int64_t{1} << 53)) : T{},
                    "-9007199254740992");
  this->from_double(std::ldexp(1.0, 40), wide, wide ? T(int64_t{1} << 40) : T{}, "1099511627776");
  this->from_double(k2p63, wide && !is_signed, wide ? T(uint64_t{1} << 63) : T{},
                    "9223372036854775808");
  this->from_double(-k2p63, wide && is_signed, wide && is_signed ? TestFixture::kMin : T{},
                    "-9223372036854775808");
  this->from_double(k2p64, false, 0, "18446744073709551616");
  this->from_double(-k2p64, false, 0, "-18446744073709551616");
  this->from_double(1e300, false, 0, "1e+300");
}

TYPED_TEST(IntegerBoundaries, FromDoubleFractions) {
  using T = typename TestFixture::T;
  constexpr bool holds255 = TestFixture::kMax >= 255;
  constexpr bool holds256 = TestFixture::kMax >= 256;
  constexpr bool is_signed = std::is_signed_v<T>;
  this->from_double(255.7, holds255, holds255 ? T(255) : T{}, "255.7");
  this->from_double(256.0, holds256, holds256 ? T(256) : T{}, "256");
  this->from_double(-0.5, true, T{0}, "");
  this->from_double(-0.0, true, T{0}, "");
  this->from_double(-0.999, true, T{0}, "");
  this->from_double(-1.0, is_signed, is_signed ? T(-1) : T{}, "-1");
  this->from_double(-1.5, is_signed, is_signed ? T(-1) : T{}, "-1.5");
  this->from_double(0.1, true, T{0}, "");
  this->from_double(126.9, true, T{126}, "");
  this->from_double(-128.9, is_signed, is_signed ? T(-128) : T{}, "-128.9");
  this->from_double(-129.0, is_signed && sizeof(T) > 1, is_signed ? T(-129) : T{}, "-129");
}

TYPED_TEST(IntegerBoundaries, FromInteger) {
  using T = typename TestFixture::T;
  for (int32_t v : {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535,
                    65536, std::numeric_limits<int32_t>::max(), kNA + 1, kNA}) {
    this->from_integer(v);
  }
  if constexpr (sizeof(T) < 4) {  // i32's minimum is NA, wider bounds are no int32
    this->from_integer(static_cast<int32_t>(TestFixture::kMin));
    this->from_integer(static_cast<int32_t>(TestFixture::kMin) - 1);
    this->from_integer(static_cast<int32_t>(TestFixture::kMax));
    this->from_integer(static_cast<int32_t>(TestFixture::kMax) + 1);
  }
}

TYPED_TEST(IntegerBoundaries, FromInteger64) {
  using T = typename TestFixture::T;
  for (int64_t v :
       {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{255}, int64_t{256}, int64_t{65536},
        int64_t{2147483647}, int64_t{2147483648}, int64_t{-2147483648}, int64_t{-2147483649},
        int64_t{4294967295}, int64_t{4294967296}, (int64_t{1} << 53) + 1,
        std::numeric_limits<int64_t>::max(), kNA64 + 1, kNA64}) {
    this->from_integer64(v);
  }
  if constexpr (sizeof(T) < 8) {  // i64's minimum is NA, ui64's maximum is no int64
    this->from_integer64(static_cast<int64_t>(TestFixture::kMin));
    this->from_integer64(static_cast<int64_t>(TestFixture::kMin) - 1);
    this->from_integer64(static_cast<int64_t>(TestFixture::kMax));
    this->from_integer64(static_cast<int64_t>(TestFixture::kMax) + 1);
  }
}

TYPED_TEST(IntegerBoundaries, FromLogical) {
  using T = typename TestFixture::T;
  const std::vector<int32_t> data{1, 0, 1};
  EXPECT_EQ(convert<T>(logicals(data), TestFixture::kDType), (std::vector<T>{1, 0, 1}));
  const std::vector<int32_t> missing{1, kNA, 0};
  expect_rejected(logicals(missing), TestFixture::kDType,
                  value_message("NA", 2, TestFixture::kDType), 1);
}

TYPED_TEST(IntegerBoundaries, RecyclesALengthOneSource) {
  using T = typename TestFixture::T;
  const std::vector<double> seven{7.9};
  for (int64_t count : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{17}, kChunk + 3}) {
    const std::vector<T> out = convert<T>(doubles(seven), TestFixture::kDType, count);
    EXPECT_EQ(out, std::vector<T>(static_cast<size_t>(count), T{7})) << count;
  }
  const std::vector<int32_t> missing{kNA};
  expect_rejected(integers(missing), TestFixture::kDType, 5,
                  value_message("NA", 1, TestFixture::kDType), 0);
}

// ---------------------------------------------------------------------------------------------
// Explicit cases from the spec, message texts written out in full

TEST(ConvertFromR, SpecExamples) {
  const std::vector<double> ui8{1, 300, 2};
  expect_rejected(doubles(ui8), DType::kU8,
                  "Value 300 at position 2 cannot be represented as ui8 (range 0 to 255)", 1);
  const std::vector<double> big{1099511627776.0};
  EXPECT_EQ(convert<int64_t>(doubles(big), DType::kI64), (std::vector<int64_t>{1099511627776}));
  const std::vector<double> fractions{255.7, -0.5};
  EXPECT_EQ(convert<uint8_t>(doubles(fractions), DType::kU8), (std::vector<uint8_t>{255, 0}));
  const std::vector<double> too_big{0, 256.0};
  expect_rejected(doubles(too_big), DType::kU8,
                  "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)", 1);
  const std::vector<double> negative{-1.0};
  expect_rejected(doubles(negative), DType::kU8,
                  "Value -1 at position 1 cannot be represented as ui8 (range 0 to 255)", 0);
  const std::vector<double> inf{3, 4, kInf};
  expect_rejected(doubles(inf), DType::kI32,
                  "Value Inf at position 3 cannot be represented as i32 (range -2147483648 to "
                  "2147483647)",
                  2);
  const std::vector<int64_t> na64{5, kNA64};
  expect_rejected(integer64s(na64), DType::kU64,
                  "Value NA at position 2 cannot be represented as ui64 (range 0 to "
                  "18446744073709551615)",
                  1);
  const std::vector<int32_t> na{kNA};
  expect_rejected(integers(na), DType::kI32,
                  "Value NA at position 1 cannot be represented as i32 (range -2147483648 to "
                  "2147483647)",
                  0);
  const std::vector<int64_t> i64_na{kNA64};
  expect_rejected(integer64s(i64_na), DType::kI64,
                  "Value NA at position 1 cannot be represented as i64 (range "
                  "-9223372036854775808 to 9223372036854775807)",
                  0);
}

TEST(ConvertFromR, Integer64BeyondDoublePrecisionIsExact) {
  const std::vector<int64_t> data{(int64_t{1} << 53) + 1, std::numeric_limits<int64_t>::max(),
                                  kNA64 + 1};
  EXPECT_EQ(convert<int64_t>(integer64s(data), DType::kI64), data);
  const std::vector<int64_t> positive{(int64_t{1} << 53) + 1, std::numeric_limits<int64_t>::max()};
  EXPECT_EQ(convert<uint64_t>(integer64s(positive), DType::kU64),
            (std::vector<uint64_t>{(uint64_t{1} << 53) + 1, (uint64_t{1} << 63) - 1}));
  const std::vector<int64_t> small{(int64_t{1} << 53) + 1};
  expect_rejected(integer64s(small), DType::kU32,
                  "Value 9007199254740993 at position 1 cannot be represented as ui32 (range 0 to "
                  "4294967295)",
                  0);
}

TEST(ConvertFromR, PredFromEverySource) {
  const std::vector<double> d{0, 1, -0.0, 1, 0};
  EXPECT_EQ(convert<uint8_t>(doubles(d), DType::kPred), (std::vector<uint8_t>{0, 1, 0, 1, 0}));
  const std::vector<int32_t> i{1, 0, 0};
  EXPECT_EQ(convert<uint8_t>(integers(i), DType::kPred), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(convert<uint8_t>(logicals(i), DType::kPred), (std::vector<uint8_t>{1, 0, 0}));
  const std::vector<int64_t> l{0, 1};
  EXPECT_EQ(convert<uint8_t>(integer64s(l), DType::kPred), (std::vector<uint8_t>{0, 1}));

  const char* tail = " cannot be represented as pred (allowed values 0 and 1)";
  auto reject_double = [&](double v, const std::string& text) {
    const std::vector<double> data{1, v};
    expect_rejected(doubles(data), DType::kPred, "Value " + text + " at position 2" + tail, 1);
  };
  reject_double(2, "2");
  reject_double(0.5, "0.5");
  reject_double(-1, "-1");
  reject_double(0.999, "0.999");
  reject_double(1.0000000000000002, "1.0000000000000002");
  reject_double(r_na_real(), "NA");
  reject_double(kNaN, "NaN");
  reject_double(kInf, "Inf");
  reject_double(-kInf, "-Inf");
  reject_double(k2p53, "9007199254740992");
  auto reject_integer = [&](int32_t v, const std::string& text) {
    const std::vector<int32_t> data{0, v};
    expect_rejected(integers(data), DType::kPred, "Value " + text + " at position 2" + tail, 1);
  };
  reject_integer(2, "2");
  reject_integer(-1, "-1");
  reject_integer(std::numeric_limits<int32_t>::max(), "2147483647");
  reject_integer(kNA + 1, "-2147483647");
  reject_integer(kNA, "NA");
  auto reject_integer64 = [&](int64_t v, const std::string& text) {
    const std::vector<int64_t> data{0, v};
    expect_rejected(integer64s(data), DType::kPred, "Value " + text + " at position 2" + tail, 1);
  };
  reject_integer64(2, "2");
  reject_integer64(-1, "-1");
  reject_integer64((int64_t{1} << 32) + 1, "4294967297");  // low word 1: no truncation
  reject_integer64(kNA64, "NA");
  const std::vector<int32_t> logical_na{1, 0, kNA};
  expect_rejected(logicals(logical_na), DType::kPred, std::string("Value NA at position 3") + tail,
                  2);
}

// ---------------------------------------------------------------------------------------------
// Chunked checks: the first offending position is reported wherever it is

struct ChunkCase {
  const char* name;
  RVectorType type;
  DType dtype;
  std::string bad_text;
};

class ChunkBoundaries : public ::testing::TestWithParam<ChunkCase> {
 protected:
  // Fills valid data and returns the expected stored values (as int64).
  void fill(int64_t n) {
    d_.assign(n, 0);
    i_.assign(n, 0);
    l_.assign(n, 0);
    expected_.assign(n, 0);
    for (int64_t k = 0; k < n; ++k) {
      switch (GetParam().dtype) {
        case DType::kU8:  // double (k % 251) + 0.5 truncates to k % 251
          d_[k] = static_cast<double>(k % 251) + 0.5;
          expected_[k] = k % 251;
          break;
        case DType::kI16:
          i_[k] = static_cast<int32_t>(k % 60000) - 30000;
          expected_[k] = i_[k];
          break;
        case DType::kI32:
          l_[k] = (k * 40503) % 4000000000 - 2000000000;
          expected_[k] = l_[k];
          break;
        case DType::kI64:  // k * 2^40 is exact in double
          d_[k] = static_cast<double>(k) * 1099511627776.0;
          expected_[k] = k << 40;
          break;
        case DType::kPred:
          i_[k] = k % 3 == 0 ? 1 : 0;
          expected_[k] = i_[k];
          break;
        default:
          FAIL();
      }
    }
  }
  void make_bad(int64_t k) {
    switch (GetParam().dtype) {
      case DType::kU8:
        d_[k] = 256.0;
        break;
      case DType::kI16:
        i_[k] = 40000;
        break;
      case DType::kI32:
        l_[k] = int64_t{1} << 31;
        break;
      case DType::kI64:
        d_[k] = kNaN;
        break;
      case DType::kPred:
        i_[k] = kNA;
        break;
      default:
        FAIL();
    }
  }
  RVectorView view() const {
    const int64_t n = static_cast<int64_t>(expected_.size());
    switch (GetParam().type) {
      case RVectorType::kDouble:
        return {RVectorType::kDouble, d_.data(), n};
      case RVectorType::kInteger64:
        return {RVectorType::kInteger64, l_.data(), n};
      default:
        return {GetParam().type, i_.data(), n};
    }
  }
  std::vector<int64_t> stored() const {
    const DType dtype = GetParam().dtype;
    const auto n = static_cast<int64_t>(expected_.size());
    std::vector<int64_t> values(n);
    std::vector<unsigned char> out(static_cast<size_t>(n) * itemsize(dtype));
    convert_from_r(view(), dtype, out.data(), n);
    dispatch(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        const T* typed = reinterpret_cast<const T*>(out.data());
        for (int64_t k = 0; k < n; ++k) values[k] = static_cast<int64_t>(typed[k]);
      }
    });
    return values;
  }
  std::string message(int64_t position0) const {
    return value_message(GetParam().bad_text, position0 + 1, GetParam().dtype);
  }

  std::vector<double> d_;
  std::vector<int32_t> i_;
  std::vector<int64_t> l_;
  std::vector<int64_t> expected_;
};

const int64_t kLengths[] = {1,      15,         16,          17,         kChunk - 1,
                            kChunk, kChunk + 1, kChunk + 17, 2 * kChunk, 3 * kChunk + 5};

TEST_P(ChunkBoundaries, ValidDataConvertsCompletely) {
  for (int64_t n : kLengths) {
    fill(n);
    EXPECT_EQ(stored(), expected_) << "length " << n;
  }
}

TEST_P(ChunkBoundaries, ReportsTheOnlyBadValue) {
  for (int64_t n : kLengths) {
    for (int64_t bad : {int64_t{0}, int64_t{15}, int64_t{16}, kChunk - 1, kChunk, kChunk + 1,
                        2 * kChunk, n - 1}) {
      if (bad >= n) continue;
      fill(n);
      make_bad(bad);
      SCOPED_TRACE("length " + std::to_string(n) + ", bad at " + std::to_string(bad));
      expect_rejected(view(), GetParam().dtype, message(bad), bad);
    }
  }
}

TEST_P(ChunkBoundaries, ReportsTheFirstOfSeveralBadValues) {
  const int64_t n = 3 * kChunk + 5;
  const std::vector<std::vector<int64_t>> layouts = {
      {kChunk, kChunk + 1, n - 1},        // the first just after a chunk boundary
      {kChunk - 1, kChunk},               // on both sides of a boundary
      {kChunk + 1, 2 * kChunk + 3},       // the second in a later chunk
      {2 * kChunk, 2 * kChunk + 100, 5},  // listed out of order: position 5 comes first
      {3 * kChunk, n - 1},                // both in the last, partial chunk
  };
  for (const auto& positions : layouts) {
    fill(n);
    int64_t first = n;
    for (int64_t p : positions) {
      make_bad(p);
      first = std::min(first, p);
    }
    SCOPED_TRACE("first bad at " + std::to_string(first));
    expect_rejected(view(), GetParam().dtype, message(first), first);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sources, ChunkBoundaries,
    ::testing::Values(ChunkCase{"DoubleToUi8", RVectorType::kDouble, DType::kU8, "256"},
                      ChunkCase{"IntegerToI16", RVectorType::kInteger, DType::kI16, "40000"},
                      ChunkCase{"Integer64ToI32", RVectorType::kInteger64, DType::kI32,
                                "2147483648"},
                      ChunkCase{"DoubleToI64", RVectorType::kDouble, DType::kI64, "NaN"},
                      ChunkCase{"LogicalToPred", RVectorType::kLogical, DType::kPred, "NA"}),
    [](const ::testing::TestParamInfo<ChunkCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// Lengths and recycling

TEST(ConvertFromR, LengthMismatch) {
  const std::vector<double> two{1, 2};
  std::vector<float> out(4);
  expect_error([&] { convert_from_r(doubles(two), DType::kF32, out.data(), 3); },
               ErrorKind::kInvalidArgument, "Data has length 2, but 3 elements are needed.");
  expect_error([&] { convert_from_r(doubles(two), DType::kF32, out.data(), 1); },
               ErrorKind::kInvalidArgument, "Data has length 2, but 1 element is needed.");
  const std::vector<double> none;
  expect_error([&] { convert_from_r(doubles(none), DType::kF32, out.data(), 4); },
               ErrorKind::kInvalidArgument, "Data has length 0, but 4 elements are needed.");
}

TEST(ConvertFromR, ZeroLengthWritesNothing) {
  std::vector<unsigned char> out(32, 0xAB);
  const std::vector<double> none;
  const std::vector<double> one{300.0};  // would not fit ui8, but nothing is converted
  for (const auto& info : kDTypeTable) {
    convert_from_r(doubles(none), info.dtype, out.data(), 0);
    convert_from_r(doubles(one), info.dtype, out.data(), 0);
    const RVectorView null_view{RVectorType::kInteger, nullptr, 0};
    convert_from_r(null_view, info.dtype, out.data(), 0);
  }
  EXPECT_EQ(out, std::vector<unsigned char>(32, 0xAB));
  // The type check still applies to an empty vector.
  const RVectorView empty_complex{RVectorType::kComplex, nullptr, 0};
  expect_error([&] { convert_from_r(empty_complex, DType::kI32, out.data(), 0); },
               ErrorKind::kInvalidArgument,
               "Complex data can only be stored as c64 or c128, not i32.");
}

TEST(ConvertFromR, RecyclingFillsEveryElementOfEveryItemsize) {
  for (int64_t count : {int64_t{2}, int64_t{5}, int64_t{16}, int64_t{33}, kChunk + 3}) {
    const std::vector<int32_t> yes{1};
    EXPECT_EQ(convert<uint8_t>(logicals(yes), DType::kPred, count), std::vector<uint8_t>(count, 1));
    const std::vector<int64_t> big{(int64_t{1} << 60) + (int64_t{1} << 52) + 1};
    EXPECT_EQ(convert<uint16_t>(integer64s(big), DType::kBF16, count),
              std::vector<uint16_t>(count, 0x5D81));
    EXPECT_EQ(convert<int64_t>(integer64s(big), DType::kI64, count),
              std::vector<int64_t>(count, big[0]));
    const std::vector<double> z{1.5, -2.25};
    EXPECT_EQ(convert<std::complex<double>>(complexes(z), DType::kC128, count),
              std::vector<std::complex<double>>(count, {1.5, -2.25}));
    const std::vector<double> half{0.1};
    EXPECT_EQ(convert<float>(doubles(half), DType::kF32, count), std::vector<float>(count, 0.1f));
  }
}

// ---------------------------------------------------------------------------------------------
// Complex

// f8e4m3fn has no Inf: a value that rounds past 448 is an error (464 is the tie that rounds
// down to 448); NaN and NA become its NaN 0x7F.
TEST(ConvertFromR, F8E4M3FNRangeIsChecked) {
  const std::string range =
      " cannot be represented as f8e4m3fn (range -448 to 448 after rounding, or NaN)";
  const std::vector<double> in_range{464.0, -464.0, 448.0, kNaN, r_na_real()};
  EXPECT_EQ(convert<uint8_t>(doubles(in_range), DType::kF8E4M3FN, 5),
            (std::vector<uint8_t>{0x7E, 0xFE, 0x7E, 0x7F, 0x7F}));
  const std::vector<double> beyond{1.0, 464.5};
  expect_rejected(doubles(beyond), DType::kF8E4M3FN, "Value 464.5 at position 2" + range, 1);
  const std::vector<double> inf{-kInf};
  expect_rejected(doubles(inf), DType::kF8E4M3FN, "Value -Inf at position 1" + range, 0);
  const std::vector<int32_t> ints{465, kNA};
  expect_rejected(integers(ints), DType::kF8E4M3FN, "Value 465 at position 1" + range, 0);
  const std::vector<int64_t> longs{-3, -465};
  expect_rejected(integer64s(longs), DType::kF8E4M3FN, "Value -465 at position 2" + range, 1);
}

TEST(ConvertFromR, ComplexOnlyToComplexDTypes) {
  const std::vector<double> z{1, 2};
  for (const auto& info : kDTypeTable) {
    if (is_complex(info.dtype)) {
      EXPECT_NO_THROW(check_convertible(RVectorType::kComplex, info.dtype));
      continue;
    }
    const std::string message =
        "Complex data can only be stored as c64 or c128, not " + std::string(info.name) + ".";
    std::vector<unsigned char> out(16);
    expect_error([&] { convert_from_r(complexes(z), info.dtype, out.data(), 1); },
                 ErrorKind::kInvalidArgument, message);
    expect_error([&] { check_convertible(RVectorType::kComplex, info.dtype); },
                 ErrorKind::kInvalidArgument, message);
    for (RVectorType real : {RVectorType::kDouble, RVectorType::kInteger, RVectorType::kLogical,
                             RVectorType::kInteger64}) {
      EXPECT_NO_THROW(check_convertible(real, info.dtype));
    }
  }
}

TEST(ConvertFromR, ComplexValues) {
  const std::vector<double> z{1.5, -2.5, 0.1, 1e300, r_na_real(), kNaN};
  const auto c128 = convert<std::complex<double>>(complexes(z), DType::kC128);
  ASSERT_EQ(c128.size(), 3u);
  EXPECT_EQ(std::memcmp(c128.data(), z.data(), z.size() * sizeof(double)), 0);  // bit exact
  const auto c64 = convert<std::complex<float>>(complexes(z), DType::kC64);
  EXPECT_EQ(c64[0], std::complex<float>(1.5f, -2.5f));
  EXPECT_EQ(c64[1].real(), 0.1f);
  EXPECT_EQ(c64[1].imag(), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(c64[2].real()));
  EXPECT_TRUE(std::isnan(c64[2].imag()));
}

TEST(ConvertFromR, RealToComplexHasZeroImaginaryPart) {
  const std::vector<double> d{2.5, r_na_real()};
  const auto from_double = convert<std::complex<double>>(doubles(d), DType::kC128);
  EXPECT_EQ(from_double[0], std::complex<double>(2.5, 0));
  EXPECT_TRUE(std::isnan(from_double[1].real()));
  EXPECT_EQ(from_double[1].imag(), 0.0);
  const std::vector<int32_t> i{-7, kNA};
  const auto from_integer = convert<std::complex<float>>(integers(i), DType::kC64);
  EXPECT_EQ(from_integer[0], std::complex<float>(-7, 0));
  EXPECT_TRUE(std::isnan(from_integer[1].real()));
  EXPECT_EQ(from_integer[1].imag(), 0.0f);
  const std::vector<int32_t> b{1, 0, kNA};
  const auto from_logical = convert<std::complex<double>>(logicals(b), DType::kC128);
  EXPECT_EQ(from_logical[0], std::complex<double>(1, 0));
  EXPECT_EQ(from_logical[1], std::complex<double>(0, 0));
  EXPECT_TRUE(std::isnan(from_logical[2].real()));
  // integer64 rounds once to the part's precision.
  const std::vector<int64_t> l{(int64_t{1} << 60) + (int64_t{1} << 36) + 1, (int64_t{1} << 53) + 1,
                               kNA64};
  const auto c64 = convert<std::complex<float>>(integer64s(l), DType::kC64);
  EXPECT_EQ(c64[0], std::complex<float>(std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37), 0));
  EXPECT_TRUE(std::isnan(c64[2].real()));
  EXPECT_EQ(c64[2].imag(), 0.0f);
  const auto c128 = convert<std::complex<double>>(integer64s(l), DType::kC128);
  EXPECT_EQ(c128[1], std::complex<double>(k2p53, 0));
}

// ---------------------------------------------------------------------------------------------
// Floats

TEST(ConvertFromR, MissingValuesBecomeNaNInEveryFloatDType) {
  const std::vector<double> d{r_na_real(), 1, 0, kNaN};
  const std::vector<int32_t> i{kNA, 1, 0, 5};
  const std::vector<int32_t> b{kNA, 1, 0, 1};
  const std::vector<int64_t> l{kNA64, 1, 0, 5};
  struct Source {
    RVectorView view;
    double last;  // the stored value of the fourth element
  };
  const Source sources[] = {
      {doubles(d), kNaN}, {integers(i), 5}, {logicals(b), 1}, {integer64s(l), 5}};
  for (DType dtype :
       {DType::kF16, DType::kBF16, DType::kF32, DType::kF64, DType::kC64, DType::kC128}) {
    for (const auto& [source, last] : sources) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " from type " +
                   std::to_string(static_cast<int>(source.type)));
      std::vector<unsigned char> stored(4 * itemsize(dtype));
      convert_from_r(source, dtype, stored.data(), 4);
      // Read back through convert_to_r (as_array()): doubles, or re/im pairs.
      std::vector<double> back(is_complex(dtype) ? 8 : 4);
      EXPECT_EQ(convert_to_r(dtype, stored.data(), back.data(), 4), 0);
      const int step = is_complex(dtype) ? 2 : 1;
      EXPECT_TRUE(std::isnan(back[0]));
      EXPECT_EQ(back[1 * step], 1.0);
      EXPECT_EQ(back[2 * step], 0.0);
      if (std::isnan(last)) {
        EXPECT_TRUE(std::isnan(back[3 * step]));
      } else {
        EXPECT_EQ(back[3 * step], last);
      }
      if (is_complex(dtype)) {
        for (int k = 0; k < 4; ++k) EXPECT_EQ(back[2 * k + 1], 0.0);
      }
    }
  }
}

TEST(ConvertFromR, DoubleToF32RoundsAndOverflowsToInfinity) {
  const float fmax = std::numeric_limits<float>::max();
  const float finf = std::numeric_limits<float>::infinity();
  const std::vector<double> d{1e300,
                              -1e300,
                              kInf,
                              static_cast<double>(fmax),
                              std::ldexp(1.0, 128),
                              std::ldexp(2.0 - std::ldexp(1.0, -24), 127),  // tie: to Inf
                              std::nextafter(std::ldexp(2.0 - std::ldexp(1.0, -24), 127), 0.0),
                              1.0 + std::ldexp(1.0, -24),      // tie to even: 1
                              1.0 + 3 * std::ldexp(1.0, -24),  // tie to even: 1 + 2^-22
                              0.1,
                              1e-50,
                              -1e-50};
  const auto f = convert<float>(doubles(d), DType::kF32);
  EXPECT_EQ(f[0], finf);
  EXPECT_EQ(f[1], -finf);
  EXPECT_EQ(f[2], finf);
  EXPECT_EQ(f[3], fmax);
  EXPECT_EQ(f[4], finf);
  EXPECT_EQ(f[5], finf);
  EXPECT_EQ(f[6], fmax);
  EXPECT_EQ(f[7], 1.0f);
  EXPECT_EQ(f[8], 1.0f + std::ldexp(1.0f, -22));
  EXPECT_EQ(f[9], 0.1f);
  EXPECT_EQ(f[10], 0.0f);
  EXPECT_TRUE(std::signbit(f[11]));
  EXPECT_EQ(f[11], 0.0f);
}

TEST(ConvertFromR, DoubleToHalfFormats) {
  const std::vector<double> d{1.0, 65504.0, 65519.0, 65520.0, -1e10, 1.0 + 3 * std::ldexp(1.0, -11),
                              0.1};
  EXPECT_EQ(convert<uint16_t>(doubles(d), DType::kF16),
            (std::vector<uint16_t>{0x3C00, 0x7BFF, 0x7BFF, 0x7C00, 0xFC00, 0x3C02, 0x2E66}));
  EXPECT_EQ(convert<uint16_t>(doubles(d), DType::kBF16),
            (std::vector<uint16_t>{0x3F80, 0x4780, 0x4780, 0x4780, 0xD015, 0x3F80, 0x3DCD}));
}

TEST(ConvertFromR, Integer64ToF32RoundsOnce) {
  // 2^60 + 2^36 + 1: nearest f32 is 2^60 + 2^37. Going through double first gives
  // 2^60 + 2^36 (a tie in f32), which would round to 2^60.
  const int64_t above_tie = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  const std::vector<int64_t> l{above_tie,
                               -above_tie,
                               (int64_t{1} << 60) + (int64_t{1} << 36),  // exact tie: to even
                               std::numeric_limits<int64_t>::max(),
                               kNA64 + 1,
                               (int64_t{1} << 53) + 1,
                               16777217};
  const auto f = convert<float>(integer64s(l), DType::kF32);
  EXPECT_EQ(f[0], std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
  EXPECT_EQ(f[1], -(std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37)));
  EXPECT_EQ(f[2], std::ldexp(1.0f, 60));
  EXPECT_EQ(f[3], std::ldexp(1.0f, 63));
  EXPECT_EQ(f[4], -std::ldexp(1.0f, 63));
  EXPECT_EQ(f[5], std::ldexp(1.0f, 53));
  EXPECT_EQ(f[6], 16777216.0f);  // tie to even
  const auto d = convert<double>(integer64s(l), DType::kF64);
  EXPECT_EQ(d[5], k2p53);  // 2^53 + 1 ties to even
  EXPECT_EQ(d[3], k2p63);
  const std::vector<int64_t> three{(int64_t{1} << 53) + 3};
  EXPECT_EQ(convert<double>(integer64s(three), DType::kF64)[0], k2p53 + 4);
}

TEST(ConvertFromR, Integer64ToBFloat16RoundsOnce) {
  // bf16 keeps 8 significant bits: near 2^60 its spacing is 2^53. 2^60 + 2^52 + 1 is just above
  // the tie and rounds up; as a double it would be the tie itself (double spacing there is 2^8)
  // and round down to 2^60.
  const int64_t above_tie = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  const std::vector<int64_t> l{above_tie,
                               -above_tie,
                               (int64_t{1} << 60) + (int64_t{1} << 52),      // exact tie: to even
                               (int64_t{1} << 60) + 3 * (int64_t{1} << 52),  // tie: up to even
                               std::numeric_limits<int64_t>::max(),
                               kNA64 + 1,
                               (int64_t{1} << 53) + 1,
                               257,
                               259};
  const auto b = convert<uint16_t>(integer64s(l), DType::kBF16);
  EXPECT_EQ(b[0], 0x5D81);  // 2^60 * (1 + 2^-7)
  EXPECT_EQ(b[1], 0xDD81);
  EXPECT_EQ(b[2], 0x5D80);
  EXPECT_EQ(b[3], 0x5D82);
  EXPECT_EQ(b[4], 0x5F00);  // 2^63
  EXPECT_EQ(b[5], 0xDF00);
  EXPECT_EQ(b[6], 0x5A00);  // 2^53
  EXPECT_EQ(b[7], 0x4380);  // 257 ties to 256
  EXPECT_EQ(b[8], 0x4382);  // 259 ties to 260
  EXPECT_EQ(bfloat16_bits_to_double(b[0]), std::ldexp(1.0, 60) + std::ldexp(1.0, 53));
  // Just above 2^53 a double still rounds (its spacing is 2): 2^53 + 2^45 + 1 is above the bf16
  // tie, but as a double it is the tie.
  const std::vector<int64_t> near53{(int64_t{1} << 53) + (int64_t{1} << 45) + 1,
                                    (int64_t{1} << 53) + (int64_t{1} << 45)};
  EXPECT_EQ(convert<uint16_t>(integer64s(near53), DType::kBF16),
            (std::vector<uint16_t>{0x5A01, 0x5A00}));
}

TEST(ConvertFromR, Integer64ToF16) {
  const std::vector<int64_t> l{2049,      2051, 65504, 65519, 65520, (int64_t{1} << 53) + 1,
                               kNA64 + 1, -3};
  EXPECT_EQ(
      convert<uint16_t>(integer64s(l), DType::kF16),
      (std::vector<uint16_t>{0x6800, 0x6802, 0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0xC200}));
  const std::vector<int32_t> i{2049, 65519, 65520, kNA + 1};
  EXPECT_EQ(convert<uint16_t>(integers(i), DType::kF16),
            (std::vector<uint16_t>{0x6800, 0x7BFF, 0x7C00, 0xFC00}));
}

TEST(ConvertFromR, IntegerAndLogicalToFloats) {
  const std::vector<int32_t> i{16777217, -16777219, std::numeric_limits<int32_t>::max(), 0};
  EXPECT_EQ(convert<float>(integers(i), DType::kF32),
            (std::vector<float>{16777216.0f, -16777220.0f, 2147483648.0f, 0.0f}));
  EXPECT_EQ(convert<double>(integers(i), DType::kF64),
            (std::vector<double>{16777217.0, -16777219.0, 2147483647.0, 0.0}));
  const std::vector<int32_t> b{1, 0};
  EXPECT_EQ(convert<float>(logicals(b), DType::kF32), (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(convert<uint16_t>(logicals(b), DType::kBF16), (std::vector<uint16_t>{0x3F80, 0}));
}

// ---------------------------------------------------------------------------------------------
// Zero-copy and missing values

TEST(ZeroCopy, Table) {
  const RVectorType types[] = {RVectorType::kLogical, RVectorType::kInteger, RVectorType::kDouble,
                               RVectorType::kComplex, RVectorType::kInteger64};
  int zero_copy = 0;
  for (RVectorType type : types) {
    for (const auto& info : kDTypeTable) {
      const bool expected = (type == RVectorType::kDouble && info.dtype == DType::kF64) ||
                            (type == RVectorType::kInteger && info.dtype == DType::kI32) ||
                            (type == RVectorType::kInteger64 && info.dtype == DType::kI64) ||
                            (type == RVectorType::kComplex && info.dtype == DType::kC128);
      EXPECT_EQ(is_zero_copy(type, info.dtype), expected)
          << static_cast<int>(type) << " " << info.name;
      zero_copy += is_zero_copy(type, info.dtype);
    }
  }
  EXPECT_EQ(zero_copy, 4);
}

TEST(ScanMissing, FindsCountAndFirst) {
  const std::vector<int32_t> i{1, kNA, 3, kNA, kNA + 1};
  MissingScan scan = scan_missing(integers(i));
  EXPECT_EQ(scan.count, 2);
  EXPECT_EQ(scan.first, 1);
  const std::vector<int32_t> clean{1, 2, kNA + 1};
  scan = scan_missing(integers(clean));
  EXPECT_EQ(scan.count, 0);
  EXPECT_EQ(scan.first, -1);
  std::vector<int64_t> l(3 * kChunk + 5, 7);
  l[kChunk] = kNA64;
  l.back() = kNA64;
  l[3] = kNA64 + 1;
  scan = scan_missing(integer64s(l));
  EXPECT_EQ(scan.count, 2);
  EXPECT_EQ(scan.first, kChunk);
  const std::vector<int64_t> empty;
  scan = scan_missing(integer64s(empty));
  EXPECT_EQ(scan.count, 0);
  EXPECT_EQ(scan.first, -1);
}

// The counting loops run in vector lanes: every position of short vectors (the lanes' tails),
// values next to NA bit for bit (0 and INT64_MAX differ from the i64 NA in one bit and in all
// but one), and NAs far apart in blocks on different threads, against counts made one by one.
template <class T, class View>
void expect_counts_at_every_position(T na, const std::vector<T>& near_misses, View view) {
  for (int64_t length = 1; length <= 40; ++length) {
    for (int64_t at = 0; at < length; ++at) {
      std::vector<T> values(static_cast<size_t>(length));
      for (size_t k = 0; k < values.size(); ++k) values[k] = near_misses[k % near_misses.size()];
      values[static_cast<size_t>(at)] = na;
      values.back() = na;
      const MissingScan scan = scan_missing(view(values));
      EXPECT_EQ(scan.count, at == length - 1 ? 1 : 2) << length << " " << at;
      EXPECT_EQ(scan.first, at) << length << " " << at;
    }
  }
  std::vector<T> large((size_t{1} << 20) + 3, near_misses[0]);
  for (size_t k = 11; k < large.size(); k += 9973) large[k] = na;
  int64_t expected = 0;
  for (const T value : large) expected += value == na;
  const MissingScan scan = scan_missing(view(large));
  EXPECT_EQ(scan.count, expected);
  EXPECT_EQ(scan.first, 11);
}

TEST(ScanMissing, CountsNAAtEveryPositionAndAcrossBlocks) {
  expect_counts_at_every_position<int32_t>(kNA, {-7, kNA + 1, 0, INT32_MAX}, integers);
  expect_counts_at_every_position<int64_t>(
      kNA64, {-7, kNA64 + 1, 0, INT64_MAX, int64_t{1} << 32, -(int64_t{1} << 32)}, integer64s);
}

TEST(ScanMissing, OnlyIntegerAndInteger64AreScanned) {
  const std::vector<double> d{r_na_real(), kNaN};
  MissingScan scan = scan_missing(doubles(d));
  EXPECT_EQ(scan.count, 0);
  EXPECT_EQ(scan.first, -1);
  const std::vector<int32_t> b{kNA};
  scan = scan_missing(logicals(b));
  EXPECT_EQ(scan.count, 0);
  EXPECT_EQ(scan.first, -1);
}

TEST(CheckZeroCopyMissing, WarnErrorIgnore) {
  std::vector<int32_t> i(kChunk + 10, 3);
  i[kChunk + 1] = kNA;
  i[kChunk + 4] = kNA;
  i[kChunk + 9] = kNA;
  EXPECT_EQ(check_zero_copy_missing(integers(i), DType::kI32, MissingCheck::kWarn), 3);
  EXPECT_EQ(check_zero_copy_missing(integers(i), DType::kI32, MissingCheck::kIgnore), 0);
  try {
    check_zero_copy_missing(integers(i), DType::kI32, MissingCheck::kError);
    ADD_FAILURE() << "expected an error";
  } catch (const ConversionError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConversion);
    EXPECT_EQ(e.position(), kChunk + 1);
    EXPECT_EQ(std::string(e.what()),
              "Value NA at position 16386 cannot be represented as i32 with check = \"error\" (it "
              "would be stored as -2147483648)");
  }

  const std::vector<int64_t> l{kNA64, 1, kNA64 + 1};
  EXPECT_EQ(check_zero_copy_missing(integer64s(l), DType::kI64, MissingCheck::kWarn), 1);
  EXPECT_EQ(check_zero_copy_missing(integer64s(l), DType::kI64, MissingCheck::kIgnore), 0);
  try {
    check_zero_copy_missing(integer64s(l), DType::kI64, MissingCheck::kError);
    ADD_FAILURE() << "expected an error";
  } catch (const ConversionError& e) {
    EXPECT_EQ(e.position(), 0);
    EXPECT_EQ(std::string(e.what()),
              "Value NA at position 1 cannot be represented as i64 with check = \"error\" (it "
              "would be stored as -9223372036854775808)");
  }
}

TEST(CheckZeroCopyMissing, CleanOrNotZeroCopyIsZero) {
  const std::vector<int32_t> clean{1, kNA + 1};
  for (MissingCheck check : {MissingCheck::kWarn, MissingCheck::kError, MissingCheck::kIgnore}) {
    EXPECT_EQ(check_zero_copy_missing(integers(clean), DType::kI32, check), 0);
  }
  // Vectors that are converted (and checked) instead of aliased are not this function's job.
  const std::vector<int32_t> na{kNA};
  const std::vector<int64_t> na64{kNA64};
  const std::vector<double> na_real{r_na_real()};
  for (MissingCheck check : {MissingCheck::kWarn, MissingCheck::kError}) {
    EXPECT_EQ(check_zero_copy_missing(integers(na), DType::kI64, check), 0);
    EXPECT_EQ(check_zero_copy_missing(logicals(na), DType::kI32, check), 0);
    EXPECT_EQ(check_zero_copy_missing(integer64s(na64), DType::kU64, check), 0);
    EXPECT_EQ(check_zero_copy_missing(doubles(na_real), DType::kF64, check), 0);
  }
}

TEST(RNaReal, BitPattern) {
  EXPECT_EQ(bits_of(r_na_real()), 0x7FF00000000007A2ULL);
  EXPECT_TRUE(std::isnan(r_na_real()));
  EXPECT_TRUE(is_r_na_real(r_na_real()));
  EXPECT_FALSE(is_r_na_real(kNaN));
  EXPECT_FALSE(is_r_na_real(1954.0));
  EXPECT_FALSE(is_r_na_real(kInf));
  // R may see NA_real_ with the quiet bit set after arithmetic; the low word still says 1954.
  double quieted;
  const uint64_t bits = 0x7FF80000000007A2ULL;
  std::memcpy(&quieted, &bits, sizeof quieted);
  EXPECT_TRUE(is_r_na_real(quieted));
}

// ---------------------------------------------------------------------------------------------
// convert_to_r (as_array())

TEST(ConvertToR, VectorTypes) {
  const RVectorType expected[] = {
      RVectorType::kLogical, RVectorType::kInteger,   RVectorType::kInteger,
      RVectorType::kInteger, RVectorType::kInteger64, RVectorType::kInteger,
      RVectorType::kInteger, RVectorType::kInteger64, RVectorType::kInteger64,
      RVectorType::kDouble,  RVectorType::kDouble,    RVectorType::kDouble,
      RVectorType::kDouble,  RVectorType::kComplex,   RVectorType::kComplex,
      RVectorType::kDouble,  RVectorType::kDouble,
  };
  for (const auto& info : kDTypeTable) {
    EXPECT_EQ(r_vector_type_for(info.dtype), expected[static_cast<size_t>(info.dtype)])
        << info.name;
  }
}

template <class Out, class In>
std::vector<Out> to_r(DType dtype, const std::vector<In>& in, int64_t expected_count) {
  std::vector<Out> out(in.size());
  EXPECT_EQ(convert_to_r(dtype, in.data(), out.data(), static_cast<int64_t>(in.size())),
            expected_count)
      << dtype_name(dtype);
  return out;
}

TEST(ConvertToR, Integers) {
  EXPECT_EQ(to_r<int32_t>(DType::kPred, std::vector<uint8_t>{0, 1, 2, 255}, 0),
            (std::vector<int32_t>{0, 1, 1, 1}));
  EXPECT_EQ(to_r<int32_t>(DType::kI8, std::vector<int8_t>{-128, 127, 0, -1}, 0),
            (std::vector<int32_t>{-128, 127, 0, -1}));
  EXPECT_EQ(to_r<int32_t>(DType::kI16, std::vector<int16_t>{-32768, 32767, 5}, 0),
            (std::vector<int32_t>{-32768, 32767, 5}));
  EXPECT_EQ(to_r<int32_t>(DType::kU8, std::vector<uint8_t>{0, 255, 128}, 0),
            (std::vector<int32_t>{0, 255, 128}));
  EXPECT_EQ(to_r<int32_t>(DType::kU16, std::vector<uint16_t>{0, 65535, 32768}, 0),
            (std::vector<int32_t>{0, 65535, 32768}));
  const std::vector<int32_t> i32{kNA, 5, kNA, std::numeric_limits<int32_t>::max(), kNA + 1};
  EXPECT_EQ(to_r<int32_t>(DType::kI32, i32, 2), i32);
  const std::vector<int64_t> i64{kNA64,    std::numeric_limits<int64_t>::max(), 0, kNA64, kNA64,
                                 kNA64 + 1};
  EXPECT_EQ(to_r<int64_t>(DType::kI64, i64, 3), i64);
  EXPECT_EQ(to_r<int64_t>(DType::kU32, std::vector<uint32_t>{0, 4294967295u, 2147483648u}, 0),
            (std::vector<int64_t>{0, 4294967295, 2147483648}));
  const std::vector<uint64_t> u64{
      0, (uint64_t{1} << 63) - 1, uint64_t{1} << 63, std::numeric_limits<uint64_t>::max(),
      5, (uint64_t{1} << 63) + 1};
  EXPECT_EQ(to_r<int64_t>(DType::kU64, u64, 3),
            (std::vector<int64_t>{0, std::numeric_limits<int64_t>::max(), kNA64, kNA64, 5, kNA64}));
}

// i64 and ui64 read back in vector lanes: the boundary values at every position of short
// vectors (the lanes' tails) and across blocks, against element-by-element references.
TEST(ConvertToR, SixtyFourBitBoundariesAtEveryPositionAndAcrossBlocks) {
  const std::vector<uint64_t> u64_values{0,
                                         (uint64_t{1} << 63) - 1,
                                         uint64_t{1} << 63,
                                         std::numeric_limits<uint64_t>::max(),
                                         (uint64_t{1} << 63) + 1,
                                         uint64_t{1} << 32};
  const std::vector<int64_t> i64_values{
      kNA64, kNA64 + 1, 0, std::numeric_limits<int64_t>::max(), -1, int64_t{1} << 32};
  for (const int64_t length :
       {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{17}, int64_t{40}, (int64_t{1} << 20) + 3}) {
    for (int64_t shift = 0; shift < 6; ++shift) {
      std::vector<uint64_t> u64(static_cast<size_t>(length));
      std::vector<int64_t> i64(u64.size());
      std::vector<int64_t> u64_expected(u64.size());
      int64_t u64_na = 0;
      int64_t i64_na = 0;
      for (int64_t k = 0; k < length; ++k) {
        u64[k] = u64_values[static_cast<size_t>((k + shift) % 6)];
        i64[k] = i64_values[static_cast<size_t>((k * 7 + shift) % 6)];
        const bool too_large = u64[k] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        u64_expected[k] = too_large ? kNA64 : static_cast<int64_t>(u64[k]);
        u64_na += too_large;
        i64_na += i64[k] == kNA64;
      }
      EXPECT_EQ(to_r<int64_t>(DType::kU64, u64, u64_na), u64_expected) << length << " " << shift;
      EXPECT_EQ(to_r<int64_t>(DType::kI64, i64, i64_na), i64) << length << " " << shift;
    }
  }
}

TEST(ConvertToR, Floats) {
  const auto f16 = to_r<double>(
      DType::kF16, std::vector<uint16_t>{0x3C00, 0x7BFF, 0x0001, 0xFC00, 0x7E00, 0x8000, 0x3555},
      0);
  EXPECT_EQ(f16[0], 1.0);
  EXPECT_EQ(f16[1], 65504.0);
  EXPECT_EQ(f16[2], std::ldexp(1.0, -24));
  EXPECT_EQ(f16[3], -kInf);
  EXPECT_TRUE(std::isnan(f16[4]));
  EXPECT_EQ(bits_of(f16[5]), 0x8000000000000000ULL);
  EXPECT_EQ(f16[6], 0x1.554p-2);
  const auto bf16 =
      to_r<double>(DType::kBF16, std::vector<uint16_t>{0x3F80, 0x7F7F, 0x0001, 0xFF80, 0x3DCD}, 0);
  EXPECT_EQ(bf16[0], 1.0);
  EXPECT_EQ(bf16[1], std::ldexp(255.0, 120));
  EXPECT_EQ(bf16[2], std::ldexp(1.0, -133));
  EXPECT_EQ(bf16[3], -kInf);
  EXPECT_EQ(bf16[4], 0.10009765625);
  const float fmax = std::numeric_limits<float>::max();
  const auto f32 =
      to_r<double>(DType::kF32, std::vector<float>{1.5f, fmax, -INFINITY, NAN, 0.1f}, 0);
  EXPECT_EQ(f32[0], 1.5);
  EXPECT_EQ(f32[1], 3.4028234663852886e38);
  EXPECT_EQ(f32[2], -kInf);
  EXPECT_TRUE(std::isnan(f32[3]));
  EXPECT_EQ(f32[4], 0.100000001490116119384765625);
  const std::vector<double> f64{0.1, r_na_real(), -0.0, 1e308};
  const auto back = to_r<double>(DType::kF64, f64, 0);
  EXPECT_EQ(std::memcmp(back.data(), f64.data(), sizeof(double) * 4), 0);
}

TEST(ConvertToR, Complex) {
  const std::vector<std::complex<float>> c64{{1.5f, -2.5f}, {0.1f, INFINITY}};
  const auto z = to_r<std::complex<double>>(DType::kC64, c64, 0);
  EXPECT_EQ(z[0], std::complex<double>(1.5, -2.5));
  EXPECT_EQ(z[1], std::complex<double>(0.100000001490116119384765625, kInf));
  const std::vector<std::complex<double>> c128{{0.1, -1e300}, {r_na_real(), kNaN}};
  const auto w = to_r<std::complex<double>>(DType::kC128, c128, 0);
  EXPECT_EQ(std::memcmp(w.data(), c128.data(), sizeof(double) * 4), 0);
}

TEST(ConvertToR, CountsAcrossChunksAndZeroLength) {
  std::vector<int32_t> i(3 * kChunk + 7, 1);
  for (int64_t k : {int64_t{0}, kChunk - 1, kChunk, 3 * kChunk + 6}) i[k] = kNA;
  EXPECT_EQ(to_r<int32_t>(DType::kI32, i, 4), i);
  std::vector<uint64_t> u(kChunk + 3, 1);
  u[kChunk] = uint64_t{1} << 63;
  const auto as_int64 = to_r<int64_t>(DType::kU64, u, 1);
  EXPECT_EQ(as_int64[kChunk], kNA64);
  EXPECT_EQ(as_int64[kChunk + 1], 1);
  int32_t untouched = 42;
  for (const auto& info : kDTypeTable) {
    EXPECT_EQ(convert_to_r(info.dtype, nullptr, &untouched, 0), 0);
  }
  EXPECT_EQ(untouched, 42);
}

// ---------------------------------------------------------------------------------------------
// Round trips R -> dtype -> R

// Converts `r_data` (n values in R's representation for the dtype) to `dtype` and back and
// expects the same bytes.
void expect_round_trip(DType dtype, const void* r_data, int64_t n, std::set<DType>* covered) {
  const RVectorType type = r_vector_type_for(dtype);
  const size_t r_item = type == RVectorType::kComplex                                       ? 16
                        : (type == RVectorType::kDouble || type == RVectorType::kInteger64) ? 8
                                                                                            : 4;
  std::vector<unsigned char> stored(static_cast<size_t>(n) * itemsize(dtype));
  convert_from_r(RVectorView{type, r_data, n}, dtype, stored.data(), n);
  std::vector<unsigned char> back(static_cast<size_t>(n) * r_item);
  EXPECT_EQ(convert_to_r(dtype, stored.data(), back.data(), n), 0) << dtype_name(dtype);
  EXPECT_EQ(std::memcmp(back.data(), r_data, back.size()), 0) << dtype_name(dtype);
  covered->insert(dtype);
}

TEST(RoundTrip, EveryDType) {
  std::set<DType> covered;
  const std::vector<int32_t> pred{1, 0, 1, 1};
  expect_round_trip(DType::kPred, pred.data(), 4, &covered);
  const std::vector<int32_t> i8{-128, 127, 0, -5};
  expect_round_trip(DType::kI8, i8.data(), 4, &covered);
  const std::vector<int32_t> i16{-32768, 32767, 0};
  expect_round_trip(DType::kI16, i16.data(), 3, &covered);
  const std::vector<int32_t> i32{kNA + 1, std::numeric_limits<int32_t>::max(), 0};
  expect_round_trip(DType::kI32, i32.data(), 3, &covered);
  const std::vector<int64_t> i64{kNA64 + 1, std::numeric_limits<int64_t>::max(),
                                 (int64_t{1} << 53) + 1};
  expect_round_trip(DType::kI64, i64.data(), 3, &covered);
  const std::vector<int32_t> u8{0, 255, 7};
  expect_round_trip(DType::kU8, u8.data(), 3, &covered);
  const std::vector<int32_t> u16{0, 65535, 40000};
  expect_round_trip(DType::kU16, u16.data(), 3, &covered);
  const std::vector<int64_t> u32{0, 4294967295, 2147483648};
  expect_round_trip(DType::kU32, u32.data(), 3, &covered);
  const std::vector<int64_t> u64{0, std::numeric_limits<int64_t>::max(), (int64_t{1} << 53) + 1};
  expect_round_trip(DType::kU64, u64.data(), 3, &covered);
  const std::vector<double> f16{1.0, 65504.0, std::ldexp(1.0, -24), -0.0, kInf, -kInf, 0x1.554p-2};
  expect_round_trip(DType::kF16, f16.data(), 7, &covered);
  const std::vector<double> bf16{1.0,  std::ldexp(255.0, 120), std::ldexp(1.0, -133), -0.0,
                                 kInf, 0.10009765625};
  expect_round_trip(DType::kBF16, bf16.data(), 6, &covered);
  const std::vector<double> f32{1.5,  0.100000001490116119384765625, 3.4028234663852886e38,
                                -0.0, std::ldexp(1.0, -149),         -kInf};
  expect_round_trip(DType::kF32, f32.data(), 6, &covered);
  const std::vector<double> f64{0.1, 1e308, r_na_real(), -0.0, kNaN, std::ldexp(1.0, -1074)};
  expect_round_trip(DType::kF64, f64.data(), 6, &covered);
  const std::vector<double> c64{1.5, -0.25, 0.100000001490116119384765625, 3.0, -0.0, kInf};
  expect_round_trip(DType::kC64, c64.data(), 3, &covered);
  const std::vector<double> c128{0.1, -1e300, r_na_real(), kNaN};
  expect_round_trip(DType::kC128, c128.data(), 2, &covered);
  const std::vector<double> f8e4m3fn{1.0, 448.0, std::ldexp(1.0, -9), -0.0, kNaN, -0.1015625};
  expect_round_trip(DType::kF8E4M3FN, f8e4m3fn.data(), 6, &covered);
  const std::vector<double> f8e5m2{1.0, 57344.0, std::ldexp(1.0, -16), -0.0, kInf, -kInf};
  expect_round_trip(DType::kF8E5M2, f8e5m2.data(), 6, &covered);
  EXPECT_EQ(covered.size(), kNumDTypes);
}

TEST(RoundTrip, NaNStaysNaNThroughNarrowFloats) {
  const std::vector<double> d{r_na_real(), kNaN, -kNaN};
  for (DType dtype : {DType::kF16, DType::kBF16, DType::kF32, DType::kC64}) {
    std::vector<unsigned char> stored(3 * itemsize(dtype));
    convert_from_r(doubles(d), dtype, stored.data(), 3);
    std::vector<double> back(is_complex(dtype) ? 6 : 3);
    convert_to_r(dtype, stored.data(), back.data(), 3);
    const int step = is_complex(dtype) ? 2 : 1;
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(std::isnan(back[k * step])) << dtype_name(dtype);
    EXPECT_TRUE(std::signbit(back[2 * step])) << dtype_name(dtype);
  }
}

// ---------------------------------------------------------------------------------------------
// Message helpers

TEST(FormatValueForMessage, AsAnRUserWouldWriteIt) {
  EXPECT_EQ(format_value_for_message(300), "300");
  EXPECT_EQ(format_value_for_message(255.7), "255.7");
  EXPECT_EQ(format_value_for_message(-1), "-1");
  EXPECT_EQ(format_value_for_message(0), "0");
  EXPECT_EQ(format_value_for_message(0.1), "0.1");
  EXPECT_EQ(format_value_for_message(-0.5), "-0.5");
  EXPECT_EQ(format_value_for_message(1.0 / 3), "0.33333333333333331");
  EXPECT_EQ(format_value_for_message(1e20), "1e+20");
  EXPECT_EQ(format_value_for_message(1e-300), "1e-300");
  EXPECT_EQ(format_value_for_message(123456789012.5), "123456789012.5");
  EXPECT_EQ(format_value_for_message(4294967296.0), "4294967296");
  EXPECT_EQ(format_value_for_message(k2p53), "9007199254740992");
  EXPECT_EQ(format_value_for_message(k2p63), "9223372036854775808");
  EXPECT_EQ(format_value_for_message(k2p64), "18446744073709551616");
  EXPECT_EQ(format_value_for_message(1.0000000000000002), "1.0000000000000002");
  EXPECT_EQ(format_value_for_message(r_na_real()), "NA");
  EXPECT_EQ(format_value_for_message(kNaN), "NaN");
  EXPECT_EQ(format_value_for_message(-kNaN), "NaN");
  EXPECT_EQ(format_value_for_message(kInf), "Inf");
  EXPECT_EQ(format_value_for_message(-kInf), "-Inf");
  // Every finite value's text reads back to the same double.
  for (double v : {0.1, 1.0 / 3, 2.0 / 3, 1e-310, 5e-324, 1.7976931348623157e308, 123.456,
                   std::nextafter(1.0, 2.0), -std::nextafter(255.0, 0.0)}) {
    EXPECT_EQ(std::strtod(format_value_for_message(v).c_str(), nullptr), v) << v;
  }
}

TEST(DTypeRangeText, EveryDType) {
  EXPECT_EQ(dtype_range_text(DType::kPred), "0 and 1");
  EXPECT_EQ(dtype_range_text(DType::kI8), "-128 to 127");
  EXPECT_EQ(dtype_range_text(DType::kI16), "-32768 to 32767");
  EXPECT_EQ(dtype_range_text(DType::kI32), "-2147483648 to 2147483647");
  EXPECT_EQ(dtype_range_text(DType::kI64), "-9223372036854775808 to 9223372036854775807");
  EXPECT_EQ(dtype_range_text(DType::kU8), "0 to 255");
  EXPECT_EQ(dtype_range_text(DType::kU16), "0 to 65535");
  EXPECT_EQ(dtype_range_text(DType::kU32), "0 to 4294967295");
  EXPECT_EQ(dtype_range_text(DType::kU64), "0 to 18446744073709551615");
  for (DType dtype :
       {DType::kF16, DType::kBF16, DType::kF32, DType::kF64, DType::kC64, DType::kC128}) {
    EXPECT_EQ(dtype_range_text(dtype), "any number") << dtype_name(dtype);
  }
}

}  // namespace
}  // namespace ndbuf
