// The safetensors header schema: reading the header's JSON text into tensor entries and metadata.
#pragma once

#include <cstddef>
#include <string>

#include "ndbuf/io/safetensors.hpp"

namespace ndbuf {

// Reads the JSON object [text, text + n) into `out` (tensor entries in header order, metadata),
// checking it against the schema event by event. Returns false on the first violation or JSON
// syntax error, with `error` set to the reason (left empty when the JSON reader gave none).
// Offsets are read but not checked against each other or the file here.
bool read_header_json(const unsigned char* text, size_t n, SafetensorsHeader& out,
                      std::string& error);

}  // namespace ndbuf
