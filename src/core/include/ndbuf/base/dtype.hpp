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

#include "ndbuf/base/half.hpp"

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
};
inline constexpr size_t kNumDTypes = 15;

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
}};

// Other spellings accepted by parse_dtype(): "i1"/"bool" (pred), "s8".."s64", "u8".."u64".
struct DTypeAlias {
  std::string_view spelling;
  DType dtype;
};

inline constexpr std::array<DTypeAlias, 10> kDTypeAliases = {{
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
}};

constexpr const DTypeInfo& dtype_info(DType d) { return kDTypeTable[static_cast<size_t>(d)]; }
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

// A compile-time dtype handed to dispatch() callbacks: `tag.value` is the DType and
// `typename decltype(tag)::type` its C++ element type (pred and ui8 differ by tag only).
template <DType D>
struct DTypeTag {
  static constexpr DType value = D;
  using type = typename ElementType<D>::type;
};

// The one switch over dtypes: calls f(DTypeTag<d>{}).
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
    case DType::kC128:
      break;
  }
  return f(DTypeTag<DType::kC128>{});
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
