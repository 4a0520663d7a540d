// The element types of ndbuf: one enum, one constexpr trait table, one dispatch helper that
// turns a runtime dtype into a call templated on the element's C++ type.
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "ndbuf/base/half.hpp"
#include "ndbuf/base/minifloat.hpp"

namespace ndbuf {

enum class DType : uint8_t {
  kPred,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kF8E4M3FN,
  kF8E5M2,
  // Program-only element types (constants, convert and the check ops; never a buffer's dtype):
  // the other small floats of StableHLO, one byte per element.
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
// The buffer dtypes (kDTypeTable); the program-only ones follow them (kProgramDTypeTable).
inline constexpr size_t kNumDTypes = 17;
inline constexpr size_t kNumProgramOnlyDTypes = 9;

enum class DTypeClass : uint8_t { kBool, kSigned, kUnsigned, kFloat, kComplex };

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // pjrt's spelling: "f32", "ui8", "pred"
  size_t itemsize;        // bytes per element
  DTypeClass cls;
  std::string_view safetensors;  // tag in safetensors headers
  std::string_view harray;       // HDataType name for HArray element types, else empty
};

inline constexpr std::array<DTypeInfo, kNumDTypes> kDTypeTable = {{
    {DType::kPred, "pred", 1, DTypeClass::kBool, "BOOL", ""},
    {DType::kI8, "i8", 1, DTypeClass::kSigned, "I8", ""},
    {DType::kI16, "i16", 2, DTypeClass::kSigned, "I16", ""},
    {DType::kI32, "i32", 4, DTypeClass::kSigned, "I32", ""},
    {DType::kI64, "i64", 8, DTypeClass::kSigned, "I64", ""},
    {DType::kU8, "ui8", 1, DTypeClass::kUnsigned, "U8", ""},
    {DType::kU16, "ui16", 2, DTypeClass::kUnsigned, "U16", ""},
    {DType::kU32, "ui32", 4, DTypeClass::kUnsigned, "U32", ""},
    {DType::kU64, "ui64", 8, DTypeClass::kUnsigned, "U64", ""},
    {DType::kF16, "f16", 2, DTypeClass::kFloat, "F16", ""},
    {DType::kBF16, "bf16", 2, DTypeClass::kFloat, "BF16", ""},
    {DType::kF32, "f32", 4, DTypeClass::kFloat, "F32", "Float32"},
    {DType::kF64, "f64", 8, DTypeClass::kFloat, "F64", "Float64"},
    {DType::kC64, "c64", 8, DTypeClass::kComplex, "C64", "Complex32"},
    {DType::kC128, "c128", 16, DTypeClass::kComplex, "C128", "Complex64"},
    {DType::kF8E4M3FN, "f8e4m3fn", 1, DTypeClass::kFloat, "F8_E4M3", ""},
    {DType::kF8E5M2, "f8e5m2", 1, DTypeClass::kFloat, "F8_E5M2", ""},
}};

// Named by their MLIR spelling; no safetensors tag, no R name (parse_dtype() never returns
// them).
inline constexpr std::array<DTypeInfo, kNumProgramOnlyDTypes> kProgramDTypeTable = {{
    {DType::kF8E4M3, "f8E4M3", 1, DTypeClass::kFloat, "", ""},
    {DType::kF8E4M3FNUZ, "f8E4M3FNUZ", 1, DTypeClass::kFloat, "", ""},
    {DType::kF8E4M3B11FNUZ, "f8E4M3B11FNUZ", 1, DTypeClass::kFloat, "", ""},
    {DType::kF8E5M2FNUZ, "f8E5M2FNUZ", 1, DTypeClass::kFloat, "", ""},
    {DType::kF8E3M4, "f8E3M4", 1, DTypeClass::kFloat, "", ""},
    {DType::kF8E8M0FNU, "f8E8M0FNU", 1, DTypeClass::kFloat, "", ""},
    {DType::kF6E2M3FN, "f6E2M3FN", 1, DTypeClass::kFloat, "", ""},
    {DType::kF6E3M2FN, "f6E3M2FN", 1, DTypeClass::kFloat, "", ""},
    {DType::kF4E2M1FN, "f4E2M1FN", 1, DTypeClass::kFloat, "", ""},
}};

// Other spellings accepted by parse_dtype(): "i1"/"bool" (pred), "s8".."s64", "u8".."u64", and
// MLIR's spellings of the 8-bit floats ("f8E4M3FN", "f8E5M2").
struct DTypeAlias {
  std::string_view spelling;
  DType dtype;
};

inline constexpr std::array<DTypeAlias, 12> kDTypeAliases = {{
    {"i1", DType::kPred},
    {"bool", DType::kPred},
    {"s8", DType::kI8},
    {"s16", DType::kI16},
    {"s32", DType::kI32},
    {"s64", DType::kI64},
    {"u8", DType::kU8},
    {"u16", DType::kU16},
    {"u32", DType::kU32},
    {"u64", DType::kU64},
    {"f8E4M3FN", DType::kF8E4M3FN},
    {"f8E5M2", DType::kF8E5M2},
}};

constexpr bool is_program_only(DType d) { return static_cast<size_t>(d) >= kNumDTypes; }
constexpr const DTypeInfo& dtype_info(DType d) {
  return is_program_only(d) ? kProgramDTypeTable[static_cast<size_t>(d) - kNumDTypes]
                            : kDTypeTable[static_cast<size_t>(d)];
}
// The small-float format of kF8E4M3FN .. kF4E2M1FN (the enum orders them as MinifloatKind).
constexpr const MinifloatFormat& minifloat_format_of(DType d) {
  return minifloat_format(
      static_cast<MinifloatKind>(static_cast<size_t>(d) - static_cast<size_t>(DType::kF8E4M3FN)));
}
constexpr bool is_minifloat(DType d) {
  return static_cast<size_t>(d) >= static_cast<size_t>(DType::kF8E4M3FN);
}
constexpr size_t itemsize(DType d) { return dtype_info(d).itemsize; }
constexpr std::string_view dtype_name(DType d) { return dtype_info(d).name; }
constexpr bool is_integer(DType d) {
  return dtype_info(d).cls == DTypeClass::kSigned || dtype_info(d).cls == DTypeClass::kUnsigned;
}
constexpr bool is_floating(DType d) { return dtype_info(d).cls == DTypeClass::kFloat; }
constexpr bool is_complex(DType d) { return dtype_info(d).cls == DTypeClass::kComplex; }

// Accepts the names of kDTypeTable and the spellings of kDTypeAliases.
std::optional<DType> parse_dtype(std::string_view name);
// Parses a dtype or throws an InvalidArgument error naming the value and the valid names.
DType parse_dtype_or_throw(std::string_view name);
// "pred, i8, i16, ..." for error messages.
std::string valid_dtype_names();
std::optional<DType> dtype_from_safetensors(std::string_view tag);

template <DType D>
struct ElementType;
template <>
struct ElementType<DType::kPred> {
  using type = uint8_t;
};
template <>
struct ElementType<DType::kI8> {
  using type = int8_t;
};
template <>
struct ElementType<DType::kI16> {
  using type = int16_t;
};
template <>
struct ElementType<DType::kI32> {
  using type = int32_t;
};
template <>
struct ElementType<DType::kI64> {
  using type = int64_t;
};
template <>
struct ElementType<DType::kU8> {
  using type = uint8_t;
};
template <>
struct ElementType<DType::kU16> {
  using type = uint16_t;
};
template <>
struct ElementType<DType::kU32> {
  using type = uint32_t;
};
template <>
struct ElementType<DType::kU64> {
  using type = uint64_t;
};
template <>
struct ElementType<DType::kF16> {
  using type = Half;
};
template <>
struct ElementType<DType::kBF16> {
  using type = BFloat16;
};
template <>
struct ElementType<DType::kF32> {
  using type = float;
};
template <>
struct ElementType<DType::kF64> {
  using type = double;
};
template <>
struct ElementType<DType::kC64> {
  using type = std::complex<float>;
};
template <>
struct ElementType<DType::kC128> {
  using type = std::complex<double>;
};
template <>
struct ElementType<DType::kF8E4M3FN> {
  using type = Float8E4M3FN;
};
template <>
struct ElementType<DType::kF8E5M2> {
  using type = Float8E5M2;
};

// A compile-time dtype handed to dispatch() callbacks: `tag.value` is the DType and
// `typename decltype(tag)::type` its C++ element type (pred and ui8 differ by tag only).
template <DType D>
struct DTypeTag {
  static constexpr DType value = D;
  using type = typename ElementType<D>::type;
};

// Program-only dtypes reach no kernel (the verifier refuses them elsewhere): an error.
[[noreturn]] void fail_program_only_dtype(DType d);

// The one switch over the buffer dtypes: calls f(DTypeTag<d>{}).
template <class F>
decltype(auto) dispatch(DType d, F&& f) {
  switch (d) {
    case DType::kPred:
      return f(DTypeTag<DType::kPred>{});
    case DType::kI8:
      return f(DTypeTag<DType::kI8>{});
    case DType::kI16:
      return f(DTypeTag<DType::kI16>{});
    case DType::kI32:
      return f(DTypeTag<DType::kI32>{});
    case DType::kI64:
      return f(DTypeTag<DType::kI64>{});
    case DType::kU8:
      return f(DTypeTag<DType::kU8>{});
    case DType::kU16:
      return f(DTypeTag<DType::kU16>{});
    case DType::kU32:
      return f(DTypeTag<DType::kU32>{});
    case DType::kU64:
      return f(DTypeTag<DType::kU64>{});
    case DType::kF16:
      return f(DTypeTag<DType::kF16>{});
    case DType::kBF16:
      return f(DTypeTag<DType::kBF16>{});
    case DType::kF32:
      return f(DTypeTag<DType::kF32>{});
    case DType::kF64:
      return f(DTypeTag<DType::kF64>{});
    case DType::kC64:
      return f(DTypeTag<DType::kC64>{});
    case DType::kF8E4M3FN:
      return f(DTypeTag<DType::kF8E4M3FN>{});
    case DType::kF8E5M2:
      return f(DTypeTag<DType::kF8E5M2>{});
    case DType::kC128:
      break;
    default:
      fail_program_only_dtype(d);
  }
  return f(DTypeTag<DType::kC128>{});
}

// The floats narrower than f32 (f16, bf16 and the 8-bit buffer dtypes), held as bit patterns:
// they widen exactly to double and are rounded to once, directly from double.
template <class T>
inline constexpr bool kIsNarrowFloat =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, Float8E4M3FN> ||
    std::is_same_v<T, Float8E5M2>;

template <class T>
inline T narrow_float_from_double(double value) noexcept {
  static_assert(kIsNarrowFloat<T>);
  if constexpr (std::is_same_v<T, Half>) {
    return to_half(value);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return to_bfloat16(value);
  } else if constexpr (std::is_same_v<T, Float8E4M3FN>) {
    return to_float8_e4m3fn(value);
  } else {
    return to_float8_e5m2(value);
  }
}

// The one rule for pred (safetensors BOOL) bytes: each must be 0 or 1. Returns the 0-based
// position of the first byte that breaks it, or -1 when all keep it.
inline int64_t first_invalid_pred_byte(const uint8_t* bytes, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (bytes[i] > 1) return i;
  }
  return -1;
}

}  // namespace ndbuf
