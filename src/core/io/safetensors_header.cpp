// Parsing and validating a safetensors header. The JSON is read by nlohmann::json's SAX
// interface, so no document tree is built: the handler below checks the schema event by event
// and keeps only the tensor entries and the metadata.
#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "io/safetensors_internal.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/io/safetensors.hpp"

namespace ndbuf {
namespace {

using Json = nlohmann::json;

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

// "1 byte", "8 bytes".
std::string byte_count(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// Tags the format defines beyond ndbuf's dtypes, with their element sizes in bits.
struct ForeignTag {
  const char* tag;
  uint32_t bits;
};
constexpr ForeignTag kForeignTags[] = {
    {"F8_E4M3", 8}, {"F8_E5M2", 8}, {"F8_E8M0", 8}, {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"F4", 4},
};

std::string known_tags() {
  std::string out;
  for (const auto& info : kDTypeTable) {
    if (!out.empty()) out += ", ";
    out += info.safetensors;
  }
  for (const auto& foreign : kForeignTags) out += std::string(", ") + foreign.tag;
  return out;
}

// The SAX handler: a small state machine over the schema
//   { name: {"dtype": str, "shape": [uint...], "data_offsets": [uint, uint], other: any},
//     "__metadata__": {str: str} | null }
// Unknown keys inside a tensor entry are skipped, as the reference implementation does.
class HeaderHandler : public nlohmann::json_sax<Json> {
 public:
  explicit HeaderHandler(SafetensorsHeader& out) : out_(out) {}
  const std::string& error() const { return error_; }

  bool null() override {
    if (skipping()) return skip_scalar();
    if (state_ == State::kMetaValue) {
      state_ = State::kTop;
      return true;
    }
    return unexpected();
  }
  bool boolean(bool) override { return skipping() ? skip_scalar() : unexpected(); }
  bool number_integer(number_integer_t value) override {
    if (skipping()) return skip_scalar();
    // "-0" is the integer zero in JSON; the reference reader (serde) accepts it as 0 too.
    if (value == 0) return number_unsigned(0);
    if (state_ == State::kShape) {
      return fail_with("the shape of tensor " + in_quotes(entry_.name) +
                       " has the negative dimension " + std::to_string(value));
    }
    return unexpected();
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (skipping()) return skip_scalar();
    if (state_ == State::kShape) {
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return fail_with("the shape of tensor " + in_quotes(entry_.name) + " has the dimension " +
                         std::to_string(value) + ", beyond 2^63 - 1");
      }
      entry_.shape.push_back(static_cast<int64_t>(value));
      return true;
    }
    if (state_ == State::kOffsets) {
      if (offsets_seen_ == 2) return unexpected();
      (offsets_seen_++ == 0 ? entry_.begin : entry_.end) = value;
      return true;
    }
    return unexpected();
  }
  bool number_float(number_float_t, const string_t&) override {
    return skipping() ? skip_scalar() : unexpected();
  }
  bool string(string_t& value) override {
    if (skipping()) return skip_scalar();
    if (state_ == State::kDType) {
      const auto dtype = dtype_from_safetensors(value);
      const uint32_t bits = safetensors_tag_bits(value);
      if (bits == 0) {
        return fail_with("tensor " + in_quotes(entry_.name) + " has the dtype " + in_quotes(value) +
                         ", which is not one of " + known_tags());
      }
      if (dtype) entry_.dtype = *dtype;
      if (!dtype) entry_.unsupported = value;
      entry_.element_bits = bits;
      state_ = State::kEntry;
      return true;
    }
    if (state_ == State::kMetaString) {
      out_.metadata->back().second = std::move(value);
      state_ = State::kMeta;
      return true;
    }
    return unexpected();
  }
  bool binary(binary_t&) override { return unexpected(); }

  bool start_object(std::size_t) override {
    if (skipping()) return skip_open();
    switch (state_) {
      case State::kRoot:
        state_ = State::kTop;
        return true;
      case State::kEntryValue:
        state_ = State::kEntry;
        return true;
      case State::kMetaValue:
        out_.metadata.emplace();
        state_ = State::kMeta;
        return true;
      default:
        return unexpected();
    }
  }
  bool key(string_t& value) override {
    if (skipping()) return true;
    switch (state_) {
      case State::kTop:
        return top_key(value);
      case State::kEntry:
        return entry_key(value);
      case State::kMeta:
        if (!meta_keys_.insert(value).second) {
          return fail_with("__metadata__ has the key " + in_quotes(value) + " twice");
        }
        out_.metadata->emplace_back(std::move(value), std::string());
        state_ = State::kMetaString;
        return true;
      default:
        return unexpected();
    }
  }
  bool end_object() override {
    if (skipping()) return skip_close();
    switch (state_) {
      case State::kTop:
        state_ = State::kDone;
        return true;
      case State::kMeta:
        state_ = State::kTop;
        return true;
      case State::kEntry:
        return finish_entry();
      default:
        return unexpected();
    }
  }
  bool start_array(std::size_t) override {
    if (skipping()) return skip_open();
    if (state_ == State::kShapeValue) {
      state_ = State::kShape;
      return true;
    }
    if (state_ == State::kOffsetsValue) {
      state_ = State::kOffsets;
      return true;
    }
    return unexpected();
  }
  bool end_array() override {
    if (skipping()) return skip_close();
    if (state_ == State::kShape) {
      state_ = State::kEntry;
      return true;
    }
    if (state_ == State::kOffsets && offsets_seen_ == 2) {
      state_ = State::kEntry;
      return true;
    }
    return unexpected();
  }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    std::string what = ex.what();
    // Drop the library's "[json.exception.parse_error.101] " tag.
    if (!what.empty() && what[0] == '[') {
      const size_t close = what.find("] ");
      if (close != std::string::npos) what.erase(0, close + 2);
    }
    return fail_with("its header is not valid JSON: " + what);
  }

 private:
  enum class State {
    kRoot,
    kTop,
    kEntryValue,
    kEntry,
    kDType,
    kShapeValue,
    kShape,
    kOffsetsValue,
    kOffsets,
    kMetaValue,
    kMeta,
    kMetaString,
    kSkip,
    kDone,
  };
  enum Field : unsigned { kDTypeField = 1, kShapeField = 2, kOffsetsField = 4 };

  bool skipping() const { return state_ == State::kSkip; }
  bool skip_scalar() {
    if (skip_depth_ == 0) state_ = State::kEntry;
    return true;
  }
  bool skip_open() {
    ++skip_depth_;
    return true;
  }
  bool skip_close() {
    if (--skip_depth_ == 0) state_ = State::kEntry;
    return true;
  }

  bool top_key(std::string& name) {
    if (!top_keys_.insert(name).second) {
      return fail_with("the name " + in_quotes(name) + " appears twice in its header");
    }
    if (name == "__metadata__") {
      state_ = State::kMetaValue;
      return true;
    }
    entry_ = SafetensorsEntry{std::move(name), DType::kU8, {}, 0, 0, {}, 8};
    fields_ = 0;
    offsets_seen_ = 0;
    state_ = State::kEntryValue;
    return true;
  }

  bool entry_key(const std::string& field) {
    unsigned bit = 0;
    State next = State::kSkip;
    if (field == "dtype") {
      bit = kDTypeField, next = State::kDType;
    } else if (field == "shape") {
      bit = kShapeField, next = State::kShapeValue;
    } else if (field == "data_offsets") {
      bit = kOffsetsField, next = State::kOffsetsValue;
    }
    if (bit != 0) {
      if ((fields_ & bit) != 0) {
        return fail_with("tensor " + in_quotes(entry_.name) + " has " + in_quotes(field) +
                         " twice");
      }
      fields_ |= bit;
    }
    skip_depth_ = 0;
    state_ = next;
    return true;
  }

  bool finish_entry() {
    static const char* const kNames[] = {"dtype", "shape", "data_offsets"};
    for (unsigned k = 0; k < 3; ++k) {
      if ((fields_ & (1u << k)) == 0) {
        return fail_with("tensor " + in_quotes(entry_.name) + " lacks " + in_quotes(kNames[k]));
      }
    }
    out_.tensors.push_back(std::move(entry_));
    state_ = State::kTop;
    return true;
  }

  // A value of the wrong JSON type for the current position.
  bool unexpected() {
    switch (state_) {
      case State::kRoot:
        return fail_with("its header is not a JSON object");
      case State::kEntryValue:
        return fail_with("tensor " + in_quotes(entry_.name) +
                         " must be a JSON object with dtype, shape and data_offsets");
      case State::kDType:
        return fail_with("the dtype of tensor " + in_quotes(entry_.name) + " must be a string");
      case State::kShapeValue:
      case State::kShape:
        return fail_with("the shape of tensor " + in_quotes(entry_.name) +
                         " must be an array of non-negative integers");
      case State::kOffsetsValue:
      case State::kOffsets:
        return fail_with("the data_offsets of tensor " + in_quotes(entry_.name) +
                         " must be an array of two non-negative integers");
      case State::kMetaValue:
      case State::kMeta:
        return fail_with("__metadata__ must be a JSON object of strings");
      case State::kMetaString:
        return fail_with("the __metadata__ value of " + in_quotes(out_.metadata->back().first) +
                         " must be a string");
      default:
        return fail_with("its header does not follow the safetensors schema");
    }
  }

  bool fail_with(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  SafetensorsHeader& out_;
  State state_ = State::kRoot;
  SafetensorsEntry entry_{};
  unsigned fields_ = 0;
  int offsets_seen_ = 0;
  size_t skip_depth_ = 0;
  std::unordered_set<std::string> top_keys_;
  std::unordered_set<std::string> meta_keys_;
  std::string error_;
};

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
    const std::string name = in_quotes(entry->name);
    if (entry->end < entry->begin) {
      safetensors_format_error("the data_offsets of tensor " + name + " end (" +
                               std::to_string(entry->end) + ") before they begin (" +
                               std::to_string(entry->begin) + ")");
    }
    if (entry->begin != expected) {
      const std::string at =
          "tensor " + name + " begins at byte " + std::to_string(entry->begin) + " of the data";
      if (previous == nullptr) {
        safetensors_format_error(at + ", but the first tensor must begin at byte 0");
      }
      safetensors_format_error(
          at + (entry->begin > expected ? ", leaving a gap after" : ", overlapping") + " tensor " +
          in_quotes(previous->name) + ", which ends at byte " + std::to_string(expected));
    }
    uint64_t numel = 0;
    uint64_t nbits = 0;
    const std::string tag = entry_tag(*entry);
    if (!shape_numel(entry->shape, &numel) ||
        __builtin_mul_overflow(numel, uint64_t{entry->element_bits}, &nbits) ||
        nbits / 8 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      safetensors_format_error("the size of tensor " + name + " (shape " +
                               shape_to_tuple(entry->shape) + " of " + tag +
                               ") overflows a 64-bit count");
    }
    if (nbits % 8 != 0) {
      safetensors_format_error("tensor " + name + " of shape " + shape_to_tuple(entry->shape) +
                               " and dtype " + tag + " fills " + std::to_string(nbits) +
                               " bits, not a whole number of bytes");
    }
    const uint64_t nbytes = nbits / 8;
    if (nbytes != entry->end - entry->begin) {
      safetensors_format_error("tensor " + name + " of shape " + shape_to_tuple(entry->shape) +
                               " and dtype " + tag + " needs " + byte_count(nbytes) +
                               ", but its data_offsets span " +
                               byte_count(entry->end - entry->begin));
    }
    if (entry->end > data_len) {
      safetensors_format_error("tensor " + name + " ends at byte " + std::to_string(entry->end) +
                               " of the data, but the file has only " + byte_count(data_len) +
                               " of data after its header");
    }
    expected = entry->end;
    previous = entry;
  }
  if (expected != data_len) {
    safetensors_format_error("the file has " + byte_count(data_len - expected) +
                             " after the end of its last tensor");
  }
}

}  // namespace

uint32_t safetensors_tag_bits(const std::string& tag) {
  if (const auto dtype = dtype_from_safetensors(tag)) {
    return static_cast<uint32_t>(itemsize(*dtype) * 8);
  }
  for (const auto& foreign : kForeignTags) {
    if (tag == foreign.tag) return foreign.bits;
  }
  return 0;
}

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
  HeaderHandler handler(header);
  const bool ok = Json::sax_parse(text, text + n, &handler, Json::input_format_t::json, true);
  if (!ok) {
    safetensors_format_error(handler.error().empty() ? "its header is not valid JSON"
                                                     : handler.error());
  }
  check_offsets(header, size - header.data_start);
  return header;
}

}  // namespace ndbuf
