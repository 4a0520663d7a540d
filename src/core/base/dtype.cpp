#include "ndbuf/base/dtype.hpp"

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

struct Alias {
  std::string_view spelling;
  DType dtype;
};

constexpr std::array<Alias, 10> kAliases = {{
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

}  // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& info : kDTypeTable) {
    if (info.name == name) return info.dtype;
  }
  for (const auto& alias : kAliases) {
    if (alias.spelling == name) return alias.dtype;
  }
  return std::nullopt;
}

std::string valid_dtype_names() {
  std::string out;
  for (const auto& info : kDTypeTable) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

DType parse_dtype_or_throw(std::string_view name) {
  if (auto dtype = parse_dtype(name)) return *dtype;
  fail(ErrorKind::kInvalidArgument, "Unknown dtype \"" + std::string(name) +
                                        "\"; valid dtypes are " + valid_dtype_names() + ".");
}

std::optional<DType> dtype_from_safetensors(std::string_view tag) {
  for (const auto& info : kDTypeTable) {
    if (info.safetensors == tag) return info.dtype;
  }
  return std::nullopt;
}

}  // namespace ndbuf
