// Turns dense<...> text into a tensor of the declared type: range-checked integers, floats
// parsed at their own precision, hex bit patterns, complex pairs, raw hex blobs.
#include "program/text/dense_literal.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {
namespace {

// The value of one hex digit, or -1.
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_hex(const std::string& text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

// Integer text as a magnitude and a sign; fails on overflow of 64 bits.
std::pair<uint64_t, bool> parse_magnitude(const DenseScalar& s, const std::string& text) {
  const bool negative = !text.empty() && text[0] == '-';
  const char* digits = text.c_str() + ((negative || (!text.empty() && text[0] == '+')) ? 1 : 0);
  if (std::strpbrk(digits, ".eE") != nullptr && !is_hex(digits)) {
    fail_at(s.loc, "expected an integer but found " + quote_text(text));
  }
  errno = 0;
  const uint64_t magnitude = std::strtoull(digits, nullptr, is_hex(digits) ? 16 : 10);
  if (errno == ERANGE) fail_at(s.loc, "integer " + quote_text(text) + " is out of range");
  return {magnitude, negative};
}

template <class T>
T integer_value(const DenseScalar& s, DType dtype) {
  if (s.kind == DenseScalar::Kind::kBool) return static_cast<T>(s.real == "true" ? 1 : 0);
  const auto [magnitude, negative] = parse_magnitude(s, s.real);
  const std::string range = " does not fit in " + element_type_name(dtype);
  if (std::is_unsigned_v<T> || dtype == DType::kPred) {
    const uint64_t max = dtype == DType::kPred ? 1 : std::numeric_limits<T>::max();
    if (negative && magnitude != 0) fail_at(s.loc, "value " + quote_text(s.real) + range);
    if (magnitude > max) fail_at(s.loc, "value " + quote_text(s.real) + range);
    return static_cast<T>(magnitude);
  }
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<T>::max()) + (negative ? 1 : 0);
  if (magnitude > limit) fail_at(s.loc, "value " + quote_text(s.real) + range);
  return static_cast<T>(negative ? 0 - magnitude : magnitude);
}

// A float written in decimal (parsed once, at the target's precision where the C library can)
// or as a hex bit pattern of the element's width.
double float_part(const DenseScalar& s, const std::string& text, DType dtype, uint64_t* bits) {
  if (s.kind == DenseScalar::Kind::kBool) fail_at(s.loc, "expected a number but found " + text);
  if (is_hex(text)) {
    *bits = std::strtoull(text.c_str(), nullptr, 16);
    return 0;
  }
  (void)dtype;
  return std::strtod(text.c_str(), nullptr);
}

template <class T>
T float_value(const DenseScalar& s, const std::string& text, DType dtype) {
  uint64_t bits = ~uint64_t{0};
  const double value = float_part(s, text, dtype, &bits);
  const bool from_bits = is_hex(text);
  if (from_bits && sizeof(T) < 8 && (bits >> (8 * (sizeof(T) % 8))) != 0) {
    fail_at(s.loc,
            "bit pattern " + quote_text(text) + " is wider than " + element_type_name(dtype));
  }
  T out{};
  if (from_bits) {
    std::memcpy(&out, &bits, sizeof(T));
    return out;
  }
  if constexpr (kIsNarrowFloat<T>) {
    return narrow_float_from_double<T>(value);
  } else if constexpr (std::is_same_v<T, float>) {
    return std::strtof(text.c_str(), nullptr);
  } else {
    return static_cast<T>(value);
  }
}

// An element of a program-only small float: a decimal rounded once, or a bit pattern of the
// format's width (6 bits for f6E2M3FN).
uint8_t minifloat_value(const DenseScalar& s, DType dtype) {
  if (s.kind == DenseScalar::Kind::kComplex) {
    fail_at(s.loc, "a complex value is not a " + element_type_name(dtype));
  }
  const MinifloatFormat& format = minifloat_format_of(dtype);
  uint64_t bits = 0;
  const double value = float_part(s, s.real, dtype, &bits);
  if (!is_hex(s.real)) return minifloat_from_double(value, format);
  const int width = format.exponent_bits + format.mantissa_bits + (format.has_sign ? 1 : 0);
  if ((bits >> width) != 0) {
    fail_at(s.loc,
            "bit pattern " + quote_text(s.real) + " is wider than " + element_type_name(dtype));
  }
  return static_cast<uint8_t>(bits);
}

template <class T>
T element_value(const DenseScalar& s, DType dtype) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    const DType part = std::is_same_v<R, float> ? DType::kF32 : DType::kF64;
    if (s.kind != DenseScalar::Kind::kComplex) return T(float_value<R>(s, s.real, part), 0);
    return T(float_value<R>(s, s.real, part), float_value<R>(s, s.imag, part));
  } else {
    if (s.kind == DenseScalar::Kind::kComplex) {
      fail_at(s.loc, "a complex value is not a " + element_type_name(dtype));
    }
    if constexpr (std::is_integral_v<T>) {
      return integer_value<T>(s, dtype);
    } else {
      return float_value<T>(s, s.real, dtype);
    }
  }
}

void fill_from_hex(const DenseLiteral& literal, const Type& type, Tensor& out) {
  const std::string& hex = literal.hex;
  if (!is_hex(hex) || hex.size() % 2 != 0) fail_at(literal.loc, "malformed hex literal");
  const size_t bytes = (hex.size() - 2) / 2;
  const size_t item = itemsize(type.dtype);
  const size_t total = static_cast<size_t>(out.nbytes());
  if (bytes != total && bytes != item) {
    fail_at(literal.loc, "hex literal holds " + std::to_string(bytes) + " bytes but " +
                             type_to_string(type) + " needs " + std::to_string(total));
  }
  auto* dst = static_cast<unsigned char*>(out.data());
  for (size_t k = 0; k < bytes; ++k) {
    if ((k & 0xFFFFF) == 0xFFFFF) check_interrupt();
    const int high = hex_digit(hex[2 + 2 * k]), low = hex_digit(hex[3 + 2 * k]);
    if (high < 0 || low < 0) fail_at(literal.loc, "malformed hex literal");
    dst[k] = static_cast<unsigned char>(high * 16 + low);
  }
  // i1 blobs hold one byte per element (MLIR's layout); any non-zero byte is true, stored as 1
  // like every other boolean (a byte 2 would compare unequal to true and fail to save).
  if (type.dtype == DType::kPred) {
    for (size_t k = 0; k < bytes; ++k) dst[k] = dst[k] != 0 ? 1 : 0;
  }
  for (size_t k = bytes; k < total; k += item) std::memcpy(dst + k, dst, item);  // splat
}

// A splat of n > 1 elements: one element repeated through zero strides, so a constant of any
// size costs one element (kernels read any strides; results handed out are made dense).
Tensor repeat_one(const Tensor& one, const Type& type) {
  return Tensor(one.storage(), type.dtype, type.shape, Strides(type.shape.size(), 0));
}

bool is_splat(const DenseLiteral& literal, const Type& type) {
  if (checked_numel(type.shape) < 2) return false;
  if (literal.is_hex_blob) {
    return literal.hex.size() >= 2 && (literal.hex.size() - 2) / 2 == itemsize(type.dtype);
  }
  return !literal.is_list && literal.values.size() == 1;
}

}  // namespace

Tensor materialize_dense(const DenseLiteral& literal, const Type& type) {
  if (!type.is_tensor()) fail_at(literal.loc, "a dense literal needs a tensor type");
  if (is_splat(literal, type)) {
    return repeat_one(materialize_dense(literal, Type::tensor(type.dtype, {})), type);
  }
  Tensor out = Tensor::allocate(type.dtype, type.shape, Order::kRowMajor);
  if (literal.is_hex_blob) {
    fill_from_hex(literal, type, out);
    return out;
  }
  const int64_t numel = out.numel();
  const bool splat = !literal.is_list && literal.values.size() == 1;
  if (!splat) {
    const bool empty_ok = numel == 0 && literal.values.empty();
    if (!empty_ok &&
        (literal.shape != type.shape || static_cast<int64_t>(literal.values.size()) != numel)) {
      fail_at(literal.loc, "dense literal of shape " + shape_to_tuple(literal.shape) +
                               " does not match " + type_to_string(type));
    }
  }
  if (is_program_only(type.dtype)) {
    auto* dst = static_cast<uint8_t*>(out.data());
    for (int64_t k = 0; k < numel; ++k) {
      dst[k] = minifloat_value(literal.values[splat ? 0 : k], type.dtype);
    }
    return out;
  }
  dispatch(type.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(out.data());
    if (splat) {
      const T value = element_value<T>(literal.values[0], type.dtype);
      for (int64_t k = 0; k < numel; ++k) dst[k] = value;
    } else {
      for (int64_t k = 0; k < numel; ++k) {
        if ((k & 0xFFFF) == 0xFFFF) check_interrupt();
        dst[k] = element_value<T>(literal.values[k], type.dtype);
      }
    }
  });
  return out;
}

}  // namespace ndbuf::program
