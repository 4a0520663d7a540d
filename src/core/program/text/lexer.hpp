// Tokens of MLIR program text, each with the line and column where it starts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "program/ir/location.hpp"

namespace ndbuf::program {

enum class Tok {
  kEof,
  kBareId,   // stablehlo.add, tensor, f32, dense, LT
  kValueId,  // %x, %0, %r#1 (text without '%')
  kSymbol,   // @main (text without '@')
  kBlockId,  // ^bb0
  kHashId,   // #stablehlo, #loc3 (text without '#')
  kBangId,   // !stablehlo.token
  kInteger,  // 12, -3, 0x7FC00000
  kFloat,    // 1.5, -2.0e+10, inf is a bare id
  kString,   // "text" (unescaped)
  kPunct,    // ( ) { } [ ] < > , : = -> ? * + and the like
};

struct Token {
  Tok kind = Tok::kEof;
  std::string text;
  Location loc;
};

// Describes a token for error messages: "'%x'", "end of input" (quoted by quote_text()).
std::string describe(const Token& token);

// Scans on demand; the parser may ask for the dimension list of a tensor type (`2x3x`), whose
// `x`-separated digits ordinary tokens cannot represent.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  const Token& peek();
  Token next();
  // Reads `2x3x` (each digit run followed by 'x') right after `tensor<`; no token may be peeked.
  std::vector<int64_t> scan_dimensions();
  Location location();

 private:
  Token scan();
  void skip_space_and_comments();
  Token scan_number(Location loc);
  Token scan_string(Location loc);
  Token scan_prefixed(Tok kind, Location loc);
  std::string scan_identifier_chars();
  char at(size_t offset) const { return pos_ + offset < text_.size() ? text_[pos_ + offset] : 0; }
  void advance(size_t count = 1);

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t tokens_ = 0;  // scanned so far: every 2^16th polls for a user interrupt
  int line_ = 1;
  int column_ = 1;
  bool has_peeked_ = false;
  Token peeked_;
};

}  // namespace ndbuf::program
