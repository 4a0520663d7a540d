// The strict element conversions from R's vector types to every dtype.
#include "ndbuf/convert/convert.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "convert/convert_loops.hpp"
#include "convert/half_kernels.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

template <class T>
constexpr bool kIsStoredInteger = std::is_integral_v<T>;

// Whether a double, truncated toward zero, fits integer type T. The bounds are exact doubles:
// trunc(v) >= lo  <=>  v > lo - 1, and trunc(v) <= hi  <=>  v < hi + 1.
template <class T>
bool double_fits(double v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return v >= -0x1p63 && v < 0x1p63;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return v > -1.0 && v < 0x1p64;
  } else {
    return v > static_cast<double>(std::numeric_limits<T>::min()) - 1.0 &&
           v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  }
}

template <class T>
bool int64_fits(int64_t x) {
  if (x == kRInteger64NA) return false;
  if constexpr (std::is_same_v<T, uint64_t>) {
    return x >= 0;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return true;
  } else {
    return x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           x <= static_cast<int64_t>(std::numeric_limits<T>::max());
  }
}

template <class T>
bool int32_fits(int32_t x) {
  if (x == kRIntegerNA) return false;
  if constexpr (sizeof(T) >= sizeof(int64_t) || std::is_same_v<T, int32_t>) {
    return std::is_signed_v<T> || x >= 0;
  } else {
    return static_cast<int64_t>(x) >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           static_cast<int64_t>(x) <= static_cast<int64_t>(std::numeric_limits<T>::max());
  }
}

std::string source_value_text(const RVectorView& source, int64_t i) {
  switch (source.type) {
    case RVectorType::kLogical: {
      const int32_t x = static_cast<const int32_t*>(source.data)[i];
      return x == kRIntegerNA ? "NA" : (x != 0 ? "TRUE" : "FALSE");
    }
    case RVectorType::kInteger: {
      const int32_t x = static_cast<const int32_t*>(source.data)[i];
      return x == kRIntegerNA ? "NA" : std::to_string(x);
    }
    case RVectorType::kInteger64: {
      const int64_t x = static_cast<const int64_t*>(source.data)[i];
      return x == kRInteger64NA ? "NA" : std::to_string(x);
    }
    case RVectorType::kDouble:
      return format_value_for_message(static_cast<const double*>(source.data)[i]);
    case RVectorType::kComplex:
      break;
  }
  return "complex";
}

[[noreturn]] void fail_value(const RVectorView& source, int64_t i, DType dtype) {
  const std::string range = dtype == DType::kPred ? "allowed values " + dtype_range_text(dtype)
                                                  : "range " + dtype_range_text(dtype);
  throw ConversionError("Value " + source_value_text(source, i) + " at position " +
                            std::to_string(i + 1) + " cannot be represented as " +
                            std::string(dtype_name(dtype)) + " (" + range + ")",
                        i);
}

template <class Dst, class Src, class Fits, class Cast>
void convert_checked(const RVectorView& source, DType dtype, Dst* out, int64_t count, Fits fits,
                     Cast cast) {
  const int64_t first_bad =
      convert_checked_loop(static_cast<const Src*>(source.data), out, count, fits, cast);
  if (first_bad < count) fail_value(source, first_bad, dtype);
}

template <class Dst, class Src, class Cast>
void convert_unchecked(const RVectorView& source, Dst* out, int64_t count, Cast cast) {
  convert_unchecked_loop(static_cast<const Src*>(source.data), out, count, cast);
}

template <class T>
void to_bool_or_integer(const RVectorView& source, DType dtype, T* out, int64_t count) {
  const bool pred = dtype == DType::kPred;
  auto from_int = [](auto x) { return static_cast<T>(x); };
  switch (source.type) {
    case RVectorType::kLogical:
      return convert_checked<T, int32_t>(
          source, dtype, out, count, [](int32_t x) { return x != kRIntegerNA; },
          [](int32_t x) { return static_cast<T>(x != 0); });
    case RVectorType::kInteger:
      if (pred) {
        return convert_checked<T, int32_t>(
            source, dtype, out, count, [](int32_t x) { return x == 0 || x == 1; }, from_int);
      }
      return convert_checked<T, int32_t>(
          source, dtype, out, count, [](int32_t x) { return int32_fits<T>(x); }, from_int);
    case RVectorType::kInteger64:
      if (pred) {
        return convert_checked<T, int64_t>(
            source, dtype, out, count, [](int64_t x) { return x == 0 || x == 1; }, from_int);
      }
      return convert_checked<T, int64_t>(
          source, dtype, out, count, [](int64_t x) { return int64_fits<T>(x); }, from_int);
    case RVectorType::kDouble:
      if (pred) {
        return convert_checked<T, double>(
            source, dtype, out, count, [](double v) { return v == 0.0 || v == 1.0; }, from_int);
      }
      return convert_checked<T, double>(
          source, dtype, out, count, [](double v) { return double_fits<T>(v); }, from_int);
    case RVectorType::kComplex:
      break;
  }
  check_convertible(source.type, dtype);
}

// int64 -> double rounding to odd: a second rounding to a format of at most 51 fraction bits
// then gives the correctly rounded result (no double rounding).
double int64_to_double_round_to_odd(int64_t x) {
  const uint64_t magnitude = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  if (magnitude <= (uint64_t{1} << 53)) return static_cast<double>(x);
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  const double result = std::ldexp(static_cast<double>(kept), shift);
  return x < 0 ? -result : result;
}

template <class T>
T float_from_double(double v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{narrow_bits<HalfF16>(v)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{narrow_bits<HalfBF16>(v)};
  } else if constexpr (kIsNarrowFloat<T>) {
    return narrow_float_from_double<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
T float_from_int64(int64_t x) {
  if (x == kRInteger64NA) return float_from_double<T>(std::numeric_limits<double>::quiet_NaN());
  if constexpr (kIsNarrowFloat<T>) {
    return float_from_double<T>(int64_to_double_round_to_odd(x));
  } else {
    return static_cast<T>(x);
  }
}

template <class T>
T float_from_int32(int32_t x) {
  return float_from_double<T>(x == kRIntegerNA ? std::numeric_limits<double>::quiet_NaN()
                                               : static_cast<double>(x));
}

// double -> f16 / bf16 through the dispatched array kernels; f8 by the table-driven encoder;
// other floats by a cast.
template <class T>
void doubles_to_float(const double* in, T* out, int64_t count) {
  for_each_block(count, sizeof(double) + sizeof(T), [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, Half>) {
      narrow_to_f16(in + begin, reinterpret_cast<uint16_t*>(out + begin), end - begin);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      narrow_to_bf16(in + begin, reinterpret_cast<uint16_t*>(out + begin), end - begin);
    } else {
      convert_block(in + begin, out + begin, end - begin,
                    [](double v) { return float_from_double<T>(v); });
    }
  });
}

// f8E4M3FN has no Inf: a value beyond its range (|v| > 464, which would round past the largest
// finite value 448) is an error rather than a silent NaN, as for the integer types. NaN and NA
// become NaN as for every float type.
bool fits_f8e4m3fn(double v) { return std::isnan(v) || std::fabs(v) <= 464.0; }

void to_f8e4m3fn(const RVectorView& source, Float8E4M3FN* out, int64_t count) {
  using T = Float8E4M3FN;
  const DType dtype = DType::kF8E4M3FN;
  switch (source.type) {
    case RVectorType::kLogical:
    case RVectorType::kInteger:
      return convert_checked<T, int32_t>(
          source, dtype, out, count, [](int32_t x) { return x == kRIntegerNA || fits_f8e4m3fn(x); },
          [](int32_t x) { return float_from_int32<T>(x); });
    case RVectorType::kInteger64:
      return convert_checked<T, int64_t>(
          source, dtype, out, count,
          [](int64_t x) { return x == kRInteger64NA || fits_f8e4m3fn(static_cast<double>(x)); },
          [](int64_t x) { return float_from_int64<T>(x); });
    case RVectorType::kDouble:
      return convert_checked<T, double>(source, dtype, out, count, fits_f8e4m3fn,
                                        [](double v) { return float_from_double<T>(v); });
    case RVectorType::kComplex:
      break;
  }
  check_convertible(source.type, dtype);
}

template <class T>
void to_float(const RVectorView& source, DType dtype, T* out, int64_t count) {
  switch (source.type) {
    case RVectorType::kLogical:
    case RVectorType::kInteger:
      return convert_unchecked<T, int32_t>(source, out, count,
                                           [](int32_t x) { return float_from_int32<T>(x); });
    case RVectorType::kInteger64:
      return convert_unchecked<T, int64_t>(source, out, count,
                                           [](int64_t x) { return float_from_int64<T>(x); });
    case RVectorType::kDouble:
      return doubles_to_float(static_cast<const double*>(source.data), out, count);
    case RVectorType::kComplex:
      break;
  }
  check_convertible(source.type, dtype);
}

template <class T>
void to_complex(const RVectorView& source, T* out, int64_t count) {
  using Part = typename T::value_type;
  switch (source.type) {
    case RVectorType::kComplex: {
      const double* in = static_cast<const double*>(source.data);
      for_each_block(count, 16 + sizeof(T), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          out[i] = T(static_cast<Part>(in[2 * i]), static_cast<Part>(in[2 * i + 1]));
        }
      });
      return;
    }
    case RVectorType::kLogical:
    case RVectorType::kInteger:
      return convert_unchecked<T, int32_t>(
          source, out, count, [](int32_t x) { return T(float_from_int32<Part>(x), 0); });
    case RVectorType::kInteger64:
      return convert_unchecked<T, int64_t>(
          source, out, count, [](int64_t x) { return T(float_from_int64<Part>(x), 0); });
    case RVectorType::kDouble:
      return convert_unchecked<T, double>(source, out, count,
                                          [](double v) { return T(static_cast<Part>(v), 0); });
  }
}

template <class T>
void convert_into(const RVectorView& source, DType dtype, T* out, int64_t count) {
  if constexpr (kIsStoredInteger<T>) {
    to_bool_or_integer<T>(source, dtype, out, count);
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    to_complex<T>(source, out, count);
  } else if constexpr (std::is_same_v<T, Float8E4M3FN>) {
    to_f8e4m3fn(source, out, count);
  } else {
    to_float<T>(source, dtype, out, count);
  }
}

}  // namespace

bool is_r_na_real(double value) noexcept {
  if (!std::isnan(value)) return false;
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits & 0xFFFFFFFFu) == 1954;
}

double r_na_real() noexcept {
  const uint64_t bits = 0x7FF00000000007A2ULL;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

bool is_zero_copy(RVectorType type, DType dtype) noexcept {
  return (type == RVectorType::kDouble && dtype == DType::kF64) ||
         (type == RVectorType::kInteger && dtype == DType::kI32) ||
         (type == RVectorType::kInteger64 && dtype == DType::kI64) ||
         (type == RVectorType::kComplex && dtype == DType::kC128);
}

void check_convertible(RVectorType type, DType dtype) {
  if (type == RVectorType::kComplex && !is_complex(dtype)) {
    fail(ErrorKind::kInvalidArgument, "Complex data can only be stored as c64 or c128, not " +
                                          std::string(dtype_name(dtype)) + ".");
  }
}

void convert_from_r(const RVectorView& source, DType dtype, void* out, int64_t count) {
  check_convertible(source.type, dtype);
  if (source.length != count && source.length != 1) {
    fail(ErrorKind::kInvalidArgument,
         "Data has length " + std::to_string(source.length) + ", but " + std::to_string(count) +
             (count == 1 ? " element is" : " elements are") + " needed.");
  }
  if (count == 0) return;
  const int64_t converted = source.length == 1 ? 1 : count;
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    convert_into<T>(source, dtype, static_cast<T*>(out), converted);
  });
  // Recycling a single value: double the filled prefix until the buffer is full.
  const size_t item = itemsize(dtype);
  char* bytes = static_cast<char*>(out);
  for (int64_t filled = 1; filled < count && converted == 1;) {
    const int64_t step = std::min(filled, count - filled);
    std::memcpy(bytes + filled * item, bytes, static_cast<size_t>(step) * item);
    filled += step;
  }
}

RVectorType r_vector_type_for(DType dtype) noexcept {
  switch (dtype_info(dtype).cls) {
    case DTypeClass::kBool:
      return RVectorType::kLogical;
    case DTypeClass::kFloat:
      return RVectorType::kDouble;
    case DTypeClass::kComplex:
      return RVectorType::kComplex;
    case DTypeClass::kSigned:
    case DTypeClass::kUnsigned:
      break;
  }
  const bool wide = dtype == DType::kI64 || dtype == DType::kU32 || dtype == DType::kU64;
  return wide ? RVectorType::kInteger64 : RVectorType::kInteger;
}

std::string format_value_for_message(double value) {
  if (std::isnan(value)) return is_r_na_real(value) ? "NA" : "NaN";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  char text[40];
  // Whole numbers print exactly (2^63 as 9223372036854775808), as an R user would type them.
  if (value == std::trunc(value) && std::fabs(value) < 1e20) {
    std::snprintf(text, sizeof text, "%.0f", value);
    return text;
  }
  std::snprintf(text, sizeof text, "%.15g", value);
  if (std::strtod(text, nullptr) != value) std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string dtype_range_text(DType dtype) {
  if (dtype == DType::kPred) return "0 and 1";
  if (dtype == DType::kF8E4M3FN) return "-448 to 448 after rounding, or NaN";
  return dispatch(dtype, [](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return std::to_string(std::numeric_limits<T>::min()) + " to " +
             std::to_string(std::numeric_limits<T>::max());
    } else {
      return "any number";
    }
  });
}

}  // namespace ndbuf
