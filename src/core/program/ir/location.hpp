// Positions in program text and the compile error that carries them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {

struct Location {
  int line = 0;
  int column = 0;
};

// Throws an InvalidArgument error "line:column: message" (the form every compile error has).
[[noreturn]] void fail_at(const Location& loc, const std::string& message);

// Program text quoted in an error message, between `open` and `close` (either may be empty):
// whole when it has at most kQuoteWholeChars characters, else its first kQuoteHeadChars
// characters and "..." inside the quotes and its length after them
// ("'abcd...' (100000 characters)"), so that a message stays short whatever the token.
// Characters are UTF-8 code points, never cut apart.
inline constexpr size_t kQuoteWholeChars = 48;
inline constexpr size_t kQuoteHeadChars = 40;
std::string quote_text(std::string_view text, std::string_view open = "'",
                       std::string_view close = "'");

}  // namespace ndbuf::program
