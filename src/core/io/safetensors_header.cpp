// Parsing and validating a safetensors header: its length prefix and encoding here, its JSON
// schema in safetensors_schema.cpp, then the layout of the tensors' bytes in the data section.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "io/safetensors_internal.hpp"
#include "io/safetensors_schema.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/io/safetensors.hpp"

namespace ndbuf {
namespace {

uint64_t read_le64(const unsigned char* p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// Elements of the shape, or nothing when a product (ignoring zero dims, which would make
// strides overflow later) leaves int64.
bool shape_numel(const Shape& shape, uint64_t* numel) {
  uint64_t all = 1;
  uint64_t nonzero = 1;
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (const int64_t d : shape) {
    const auto dim = static_cast<uint64_t>(d);
    if (dim != 0 && (__builtin_mul_overflow(nonzero, dim, &nonzero) || nonzero > kMax)) {
      return false;
    }
    all = dim == 0 ? 0 : all * dim;
  }
  *numel = all;
  return true;
}

std::string entry_tag(const SafetensorsEntry& entry) {
  return entry.unsupported.empty() ? std::string(dtype_info(entry.dtype).safetensors)
                                   : entry.unsupported;
}

// The tensor's bytes, from its shape and element size; throws when the count leaves int64 or
// is not a whole number of bytes.
uint64_t entry_nbytes(const SafetensorsEntry& entry) {
  const std::string name = in_quotes(entry.name);
  const std::string tag = entry_tag(entry);
  uint64_t numel = 0;
  uint64_t nbits = 0;
  if (!shape_numel(entry.shape, &numel) ||
      __builtin_mul_overflow(numel, uint64_t{entry.element_bits}, &nbits) ||
      nbits / 8 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    safetensors_format_error("the size of tensor " + name + " (shape " +
                             shape_to_tuple(entry.shape) + " of " + tag +
                             ") overflows a 64-bit count");
  }
  if (nbits % 8 != 0) {
    safetensors_format_error("tensor " + name + " of shape " + shape_to_tuple(entry.shape) +
                             " and dtype " + tag + " fills " + std::to_string(nbits) +
                             " bits, not a whole number of bytes");
  }
  return nbits / 8;
}

// One tensor's data_offsets, given where the previous tensor (in offset order) ended.
void check_entry_offsets(const SafetensorsEntry& entry, const SafetensorsEntry* previous,
                         uint64_t expected, uint64_t data_len) {
  const std::string name = in_quotes(entry.name);
  if (entry.end < entry.begin) {
    safetensors_format_error("the data_offsets of tensor " + name + " end (" +
                             std::to_string(entry.end) + ") before they begin (" +
                             std::to_string(entry.begin) + ")");
  }
  if (entry.begin != expected) {
    const std::string at =
        "tensor " + name + " begins at byte " + std::to_string(entry.begin) + " of the data";
    if (previous == nullptr) {
      safetensors_format_error(at + ", but the first tensor must begin at byte 0");
    }
    safetensors_format_error(
        at + (entry.begin > expected ? ", leaving a gap after" : ", overlapping") + " tensor " +
        in_quotes(previous->name) + ", which ends at byte " + std::to_string(expected));
  }
  const uint64_t nbytes = entry_nbytes(entry);
  if (nbytes != entry.end - entry.begin) {
    safetensors_format_error("tensor " + name + " of shape " + shape_to_tuple(entry.shape) +
                             " and dtype " + entry_tag(entry) + " needs " + byte_count(nbytes) +
                             ", but its data_offsets span " + byte_count(entry.end - entry.begin));
  }
  if (entry.end > data_len) {
    safetensors_format_error("tensor " + name + " ends at byte " + std::to_string(entry.end) +
                             " of the data, but the file has only " + byte_count(data_len) +
                             " of data after its header");
  }
}

// The tensors, in offset order, must tile the data section exactly: no gap, no overlap, no
// bytes left over, each spanning exactly its shape's bytes.
void check_offsets(const SafetensorsHeader& header, uint64_t data_len) {
  std::vector<const SafetensorsEntry*> order;
  order.reserve(header.tensors.size());
  for (const auto& entry : header.tensors) order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t expected = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const auto* entry : order) {
    check_entry_offsets(*entry, previous, expected, data_len);
    expected = entry->end;
    previous = entry;
  }
  if (expected != data_len) {
    safetensors_format_error("the file has " + byte_count(data_len - expected) +
                             " after the end of its last tensor");
  }
}

}  // namespace

size_t valid_utf8_prefix(const unsigned char* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t min = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return i;
    }
    if (n - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return n;
}

[[noreturn]] void safetensors_format_error(const std::string& reason) {
  fail(ErrorKind::kFormat, std::string(kSafetensorsInvalid) + ": " + reason + ".");
}

SafetensorsHeader parse_safetensors(const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (size < 8) {
    safetensors_format_error("it has " + byte_count(size) +
                             ", fewer than the 8 bytes of its header length");
  }
  const uint64_t n = read_le64(bytes);
  if (n > kSafetensorsMaxHeaderBytes) {
    safetensors_format_error("its header length " + std::to_string(n) + " exceeds the limit of " +
                             std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
  }
  if (n > size - 8) {
    safetensors_format_error("its header length " + std::to_string(n) +
                             " runs past the end of the file (" + byte_count(size) + ")");
  }
  const unsigned char* text = bytes + 8;
  const size_t valid = valid_utf8_prefix(text, n);
  if (valid != n) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", text[valid]);
    safetensors_format_error("its header is not valid UTF-8 (byte " + std::string(hex) +
                             " at header position " + std::to_string(valid + 1) + ")");
  }
  // A raw NUL is never valid JSON, and the JSON lexer would take it for the end of input.
  if (const void* nul = std::memchr(text, 0, n)) {
    safetensors_format_error("its header is not valid JSON: a NUL byte at header position " +
                             std::to_string(static_cast<const unsigned char*>(nul) - text + 1));
  }
  if (n == 0 || text[0] != '{') {
    safetensors_format_error("its header must be a JSON object beginning with '{'");
  }
  SafetensorsHeader header;
  header.data_start = 8 + n;
  std::string error;
  if (!read_header_json(text, n, header, error)) {
    safetensors_format_error(error.empty() ? "its header is not valid JSON" : error);
  }
  check_offsets(header, size - header.data_start);
  return header;
}

}  // namespace ndbuf
