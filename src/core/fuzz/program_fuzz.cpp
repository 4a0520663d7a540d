// libFuzzer target for the program front end: arbitrary text through the lexer, parser,
// verifier and planner. Every input must either compile or be rejected with an ndbuf::Error
// whose message starts with "line:column: "; nothing may crash, hang or leak. Programs are not
// executed (a fuzzed while loop may legitimately never end).
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ndbuf/base/error.hpp"
#include "program/exec/compile.hpp"

namespace {

bool starts_with_location(const std::string& message) {
  size_t k = 0;
  while (k < message.size() && std::isdigit(static_cast<unsigned char>(message[k]))) ++k;
  if (k == 0 || k >= message.size() || message[k] != ':') return false;
  const size_t column = ++k;
  while (k < message.size() && std::isdigit(static_cast<unsigned char>(message[k]))) ++k;
  return k > column && message.compare(k, 2, ": ") == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool require_main : {false, true}) {
    try {
      ndbuf::program::compile_module(text, require_main);
    } catch (const ndbuf::Error& e) {
      if (!starts_with_location(e.what())) std::abort();  // every compile error has a location
    }
  }
  return 0;
}
