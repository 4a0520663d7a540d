// Building safetensors files byte by byte, for the reader's tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "ndbuf/memory/storage.hpp"

namespace ndbuf::safetensors_bytes {

// `v` as 8 little-endian bytes (the header-length prefix).
inline std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int k = 0; k < 8; ++k) s[k] = static_cast<char>(v >> (8 * k));
  return s;
}

// A whole file: length prefix, JSON header, data section.
inline std::string file_bytes(const std::string& header, const std::string& data = "") {
  return le64(header.size()) + header + data;
}

// The bytes in host storage, as a loaded file would be.
inline std::shared_ptr<Storage> as_storage(const std::string& bytes) {
  auto storage = allocate_host(bytes.size());
  if (!bytes.empty()) std::memcpy(storage->data(), bytes.data(), bytes.size());
  return storage;
}

}  // namespace ndbuf::safetensors_bytes
