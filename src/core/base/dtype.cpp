// Parsing dtype names, aliases and safetensors tags against the dtype table.
#include "ndbuf/base/dtype.hpp"

#include "ndbuf/base/error.hpp"

namespace ndbuf {
std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& info : kDTypeTable) {
    if (info.name == name) return info.dtype;
  }
  for (const auto& alias : kDTypeAliases) {
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

void fail_program_only_dtype(DType d) {
  fail(ErrorKind::kInvalidArgument, "element type " + std::string(dtype_name(d)) +
                                        " is supported only by constants, convert and the check "
                                        "ops of a program");
}

std::optional<DType> dtype_from_safetensors(std::string_view tag) {
  for (const auto& info : kDTypeTable) {
    if (info.safetensors == tag) return info.dtype;
  }
  return std::nullopt;
}

}  // namespace ndbuf
