// Shared by the safetensors reader and writer; not part of the public headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ndbuf {

// A name as the safetensors messages show it: in double quotes.
inline std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

// "1 byte", "8 bytes".
inline std::string byte_count(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

inline constexpr const char* kSafetensorsInvalid = "Invalid safetensors file";

// Throws Error(kFormat): "Invalid safetensors file: <reason>."
[[noreturn]] void safetensors_format_error(const std::string& reason);

// Length of the longest prefix of [p, p + n) that is well-formed UTF-8 (no overlong forms,
// no surrogates, nothing above U+10FFFF).
size_t valid_utf8_prefix(const unsigned char* p, size_t n);

}  // namespace ndbuf
