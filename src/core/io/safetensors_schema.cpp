// The safetensors header schema, checked while nlohmann::json's SAX reader walks the JSON text:
// no document tree is built; only the tensor entries and the metadata are kept.
#include "io/safetensors_schema.hpp"

#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>

#include "io/safetensors_internal.hpp"

namespace ndbuf {
namespace {

using Json = nlohmann::json;

// Tags the format defines beyond ndbuf's dtypes, with their element sizes in bits.
struct ForeignTag {
  const char* tag;
  uint32_t bits;
};
constexpr ForeignTag kForeignTags[] = {
    {"F8_E8M0", 8},
    {"F6_E2M3", 6},
    {"F6_E3M2", 6},
    {"F4", 4},
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

// Where the reader stands in the schema
//   { name: {"dtype": str, "shape": [uint...], "data_offsets": [uint, uint], other: any},
//     "__metadata__": {str: str} | null }
// and the events that move it on (anything else is a schema error):
//   kRoot        --{-->  kTop          --}-->  kDone
//   kTop         --key name-->  kEntryValue  --{-->  kEntry  --}-->  kTop (entry complete)
//   kEntry       --"dtype"-->         kDType        --string-->          kEntry
//   kEntry       --"shape"-->         kShapeValue   --[-->  kShape   --uint... ]-->  kEntry
//   kEntry       --"data_offsets"-->  kOffsetsValue --[-->  kOffsets --uint uint ]-->  kEntry
//   kEntry       --other key-->       kSkip (any value, nested or not)  -->  kEntry
//   kTop         --"__metadata__"-->  kMetaValue  --null-->  kTop;  --{-->  kMeta  --}-->  kTop
//   kMeta        --key-->  kMetaString  --string-->  kMeta
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

// The fields a tensor entry must have, each once.
enum Field : unsigned { kDTypeField = 1, kShapeField = 2, kOffsetsField = 4 };
constexpr const char* kFieldNames[] = {"dtype", "shape", "data_offsets"};

// The SAX handler. Each JSON event either moves the state along the diagram above or records
// the first error; returning false stops the reader. Unknown keys inside a tensor entry are
// skipped (with whatever value they hold), as the reference implementation does.
class HeaderHandler : public nlohmann::json_sax<Json> {
 public:
  explicit HeaderHandler(SafetensorsHeader& out) : out_(out) {}
  const std::string& error() const { return error_; }

  // Scalars.
  bool null() override {
    if (state_ == State::kSkip) return skip_scalar();
    if (state_ != State::kMetaValue) return unexpected();
    state_ = State::kTop;  // "__metadata__": null
    return true;
  }
  bool boolean(bool) override { return state_ == State::kSkip ? skip_scalar() : unexpected(); }
  bool number_integer(number_integer_t value) override {
    if (state_ == State::kSkip) return skip_scalar();
    // "-0" is the integer zero in JSON; the reference reader (serde) accepts it as 0 too.
    if (value == 0) return number_unsigned(0);
    if (state_ != State::kShape) return unexpected();
    return fail_with("the shape of tensor " + in_quotes(entry_.name) +
                     " has the negative dimension " + std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (state_ == State::kSkip) return skip_scalar();
    if (state_ == State::kShape) return read_dimension(value);
    if (state_ == State::kOffsets) return read_offset(value);
    return unexpected();
  }
  bool number_float(number_float_t, const string_t&) override {
    return state_ == State::kSkip ? skip_scalar() : unexpected();
  }
  bool string(string_t& value) override {
    if (state_ == State::kSkip) return skip_scalar();
    if (state_ == State::kDType) return read_dtype(value);
    if (state_ != State::kMetaString) return unexpected();
    out_.metadata->back().second = std::move(value);
    state_ = State::kMeta;
    return true;
  }
  bool binary(binary_t&) override { return unexpected(); }  // never in JSON text

  // Objects and arrays.
  bool start_object(std::size_t) override {
    if (state_ == State::kSkip) return skip_open();
    if (state_ == State::kMetaValue) out_.metadata.emplace();
    return move_on({{State::kRoot, State::kTop},
                    {State::kEntryValue, State::kEntry},
                    {State::kMetaValue, State::kMeta}});
  }
  bool key(string_t& value) override {
    if (state_ == State::kSkip) return true;  // a key inside a skipped object
    if (state_ == State::kTop) return top_key(value);
    if (state_ == State::kEntry) return entry_key(value);
    if (state_ == State::kMeta) return metadata_key(value);
    return unexpected();
  }
  bool end_object() override {
    if (state_ == State::kSkip) return skip_close();
    if (state_ == State::kEntry) return finish_entry();
    return move_on({{State::kTop, State::kDone}, {State::kMeta, State::kTop}});
  }
  bool start_array(std::size_t) override {
    if (state_ == State::kSkip) return skip_open();
    return move_on({{State::kShapeValue, State::kShape}, {State::kOffsetsValue, State::kOffsets}});
  }
  bool end_array() override {
    if (state_ == State::kSkip) return skip_close();
    if (state_ == State::kOffsets && offsets_seen_ != 2) return unexpected();
    return move_on({{State::kShape, State::kEntry}, {State::kOffsets, State::kEntry}});
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
  struct Transition {
    State from;
    State to;
  };

  // Takes the transition that leaves the current state, if the event has one.
  bool move_on(std::initializer_list<Transition> transitions) {
    for (const auto& t : transitions) {
      if (state_ == t.from) {
        state_ = t.to;
        return true;
      }
    }
    return unexpected();
  }

  // A skipped value ends when its outermost scalar, object or array does.
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

  bool read_dimension(uint64_t value) {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return fail_with("the shape of tensor " + in_quotes(entry_.name) + " has the dimension " +
                       std::to_string(value) + ", beyond 2^63 - 1");
    }
    entry_.shape.push_back(static_cast<int64_t>(value));
    return true;
  }

  bool read_offset(uint64_t value) {
    if (offsets_seen_ == 2) return unexpected();
    (offsets_seen_++ == 0 ? entry_.begin : entry_.end) = value;
    return true;
  }

  // A dtype tag: one of ndbuf's, or one the format defines that ndbuf does not hold (kept as
  // `unsupported`, with its size, so the offsets can still be checked).
  bool read_dtype(const std::string& tag) {
    const uint32_t bits = safetensors_tag_bits(tag);
    if (bits == 0) {
      return fail_with("tensor " + in_quotes(entry_.name) + " has the dtype " + in_quotes(tag) +
                       ", which is not one of " + known_tags());
    }
    if (const auto dtype = dtype_from_safetensors(tag)) {
      entry_.dtype = *dtype;
    } else {
      entry_.unsupported = tag;
    }
    entry_.element_bits = bits;
    state_ = State::kEntry;
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
    if ((fields_ & bit) != 0) {
      return fail_with("tensor " + in_quotes(entry_.name) + " has " + in_quotes(field) + " twice");
    }
    fields_ |= bit;
    skip_depth_ = 0;
    state_ = next;
    return true;
  }

  bool metadata_key(std::string& key) {
    if (!meta_keys_.insert(key).second) {
      return fail_with("__metadata__ has the key " + in_quotes(key) + " twice");
    }
    out_.metadata->emplace_back(std::move(key), std::string());
    state_ = State::kMetaString;
    return true;
  }

  bool finish_entry() {
    for (unsigned k = 0; k < 3; ++k) {
      if ((fields_ & (1u << k)) == 0) {
        return fail_with("tensor " + in_quotes(entry_.name) + " lacks " +
                         in_quotes(kFieldNames[k]));
      }
    }
    out_.tensors.push_back(std::move(entry_));
    state_ = State::kTop;
    return true;
  }

  // A value of the wrong JSON type for the current position.
  bool unexpected() { return fail_with(expectation()); }
  std::string expectation() const {
    const std::string tensor = in_quotes(entry_.name);
    switch (state_) {
      case State::kRoot:
        return "its header is not a JSON object";
      case State::kEntryValue:
        return "tensor " + tensor + " must be a JSON object with dtype, shape and data_offsets";
      case State::kDType:
        return "the dtype of tensor " + tensor + " must be a string";
      case State::kShapeValue:
      case State::kShape:
        return "the shape of tensor " + tensor + " must be an array of non-negative integers";
      case State::kOffsetsValue:
      case State::kOffsets:
        return "the data_offsets of tensor " + tensor +
               " must be an array of two non-negative integers";
      case State::kMetaValue:
      case State::kMeta:
        return "__metadata__ must be a JSON object of strings";
      case State::kMetaString:
        return "the __metadata__ value of " + in_quotes(out_.metadata->back().first) +
               " must be a string";
      default:
        return "its header does not follow the safetensors schema";
    }
  }

  bool fail_with(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  SafetensorsHeader& out_;
  State state_ = State::kRoot;
  SafetensorsEntry entry_{};
  unsigned fields_ = 0;  // the Field bits seen in the current entry
  int offsets_seen_ = 0;
  size_t skip_depth_ = 0;  // open objects and arrays within a skipped value
  std::unordered_set<std::string> top_keys_;
  std::unordered_set<std::string> meta_keys_;
  std::string error_;
};

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

bool read_header_json(const unsigned char* text, size_t n, SafetensorsHeader& out,
                      std::string& error) {
  HeaderHandler handler(out);
  const bool ok = Json::sax_parse(text, text + n, &handler, Json::input_format_t::json, true);
  error = handler.error();
  return ok;
}

}  // namespace ndbuf
