// On-demand scanner for MLIR text: identifiers, value and symbol names, numbers, strings.
#include "program/text/lexer.hpp"

#include <cctype>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {
namespace {

bool is_id_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

void fail_at(const Location& loc, const std::string& message) {
  fail(ErrorKind::kInvalidArgument,
       std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": " + message);
}

std::string quote_text(std::string_view text, std::string_view open, std::string_view close) {
  size_t chars = 0;
  size_t head_bytes = text.size();  // the bytes of the first kQuoteHeadChars characters
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars == kQuoteHeadChars) head_bytes = i;
    ++chars;
  }
  std::string out(open);
  if (chars <= kQuoteWholeChars) return out.append(text).append(close);
  out.append(text.substr(0, head_bytes)).append("...").append(close);
  return out + " (" + std::to_string(chars) + " characters)";
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case Tok::kEof:
      return "end of input";
    case Tok::kValueId:
      return quote_text("%" + token.text);
    case Tok::kSymbol:
      return quote_text("@" + token.text);
    case Tok::kHashId:
      return quote_text("#" + token.text);
    case Tok::kString:
      return "string " + quote_text(token.text, "\"", "\"");
    default:
      return quote_text(token.text);
  }
}

const Token& Lexer::peek() {
  if (!has_peeked_) {
    peeked_ = scan();
    has_peeked_ = true;
  }
  return peeked_;
}

Token Lexer::next() {
  if (has_peeked_) {
    has_peeked_ = false;
    return std::move(peeked_);
  }
  return scan();
}

Location Lexer::location() {
  if (has_peeked_) return peeked_.loc;
  skip_space_and_comments();
  return Location{line_, column_};
}

void Lexer::advance(size_t count) {
  for (size_t k = 0; k < count && pos_ < text_.size(); ++k) {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
}

void Lexer::skip_space_and_comments() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance();
    } else if (c == '/' && at(1) == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else {
      return;
    }
  }
}

std::vector<int64_t> Lexer::scan_dimensions() {
  std::vector<int64_t> dims;
  skip_space_and_comments();
  for (;;) {
    size_t len = 0;
    while (is_digit(at(len))) ++len;
    if (len == 0 || at(len) != 'x') break;
    const Location loc{line_, column_};
    if (len > 18)
      fail_at(loc, "dimension " + quote_text(text_.substr(pos_, len)) + " is too large");
    dims.push_back(std::stoll(std::string(text_.substr(pos_, len))));
    advance(len + 1);
  }
  return dims;
}

std::string Lexer::scan_identifier_chars() {
  const size_t start = pos_;
  while (is_id_char(at(0))) advance();
  return std::string(text_.substr(start, pos_ - start));
}

Token Lexer::scan_number(Location loc) {
  const size_t start = pos_;
  if (at(0) == '-' || at(0) == '+') advance();
  if (at(0) == '0' && (at(1) == 'x' || at(1) == 'X') &&
      std::isxdigit(static_cast<unsigned char>(at(2)))) {
    advance(2);
    while (std::isxdigit(static_cast<unsigned char>(at(0)))) advance();
    return Token{Tok::kInteger, std::string(text_.substr(start, pos_ - start)), loc};
  }
  bool is_float = false;
  while (is_digit(at(0))) advance();
  if (at(0) == '.' && is_digit(at(1))) {
    is_float = true;
    advance();
    while (is_digit(at(0))) advance();
  } else if (at(0) == '.') {
    is_float = true;
    advance();
  }
  if ((at(0) == 'e' || at(0) == 'E') &&
      (is_digit(at(1)) || ((at(1) == '+' || at(1) == '-') && is_digit(at(2))))) {
    is_float = true;
    advance(2);
    while (is_digit(at(0))) advance();
  }
  return Token{is_float ? Tok::kFloat : Tok::kInteger,
               std::string(text_.substr(start, pos_ - start)), loc};
}

Token Lexer::scan_string(Location loc) {
  advance();  // opening quote
  std::string value;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\n') break;
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
      const char e = at(1);
      if (e == 'n')
        value += '\n';
      else if (e == 't')
        value += '\t';
      else if (std::isxdigit(static_cast<unsigned char>(e)) &&
               std::isxdigit(static_cast<unsigned char>(at(2)))) {
        value += static_cast<char>(std::stoi(std::string(text_.substr(pos_ + 1, 2)), nullptr, 16));
        advance();
      } else {
        value += e;
      }
      advance(2);
      continue;
    }
    value += text_[pos_];
    advance();
  }
  if (pos_ >= text_.size() || text_[pos_] != '"') fail_at(loc, "unterminated string");
  advance();
  return Token{Tok::kString, std::move(value), loc};
}

Token Lexer::scan_prefixed(Tok kind, Location loc) {
  advance();  // the sigil
  if (at(0) == '"') {
    Token quoted = scan_string(loc);
    quoted.kind = kind;
    return quoted;
  }
  std::string name = scan_identifier_chars();
  // `%r#1` names result 1 of the multi-result value %r.
  if (kind == Tok::kValueId && at(0) == '#' && is_digit(at(1))) {
    advance();
    name += '#' + scan_identifier_chars();
  }
  if (name.empty()) fail_at(loc, "expected a name after '" + std::string(1, text_[pos_ - 1]) + "'");
  return Token{kind, std::move(name), loc};
}

Token Lexer::scan() {
  if ((++tokens_ & 0xFFFF) == 0) check_interrupt();  // a long text is a long compile
  skip_space_and_comments();
  const Location loc{line_, column_};
  if (pos_ >= text_.size()) return Token{Tok::kEof, "", loc};
  const char c = text_[pos_];
  if (is_id_start(c)) return Token{Tok::kBareId, scan_identifier_chars(), loc};
  if (is_digit(c) || ((c == '-' || c == '+') && is_digit(at(1)))) return scan_number(loc);
  switch (c) {
    case '"':
      return scan_string(loc);
    case '%':
      return scan_prefixed(Tok::kValueId, loc);
    case '@':
      return scan_prefixed(Tok::kSymbol, loc);
    case '^':
      return scan_prefixed(Tok::kBlockId, loc);
    case '#':
      return scan_prefixed(Tok::kHashId, loc);
    case '!':
      return scan_prefixed(Tok::kBangId, loc);
    default:
      break;
  }
  if (c == '-' && at(1) == '>') {
    advance(2);
    return Token{Tok::kPunct, "->", loc};
  }
  if (std::string_view("(){}[]<>,:=?*+-|").find(c) == std::string_view::npos) {
    fail_at(loc, "unexpected character '" + std::string(1, c) + "'");
  }
  advance();
  return Token{Tok::kPunct, std::string(1, c), loc};
}

}  // namespace ndbuf::program
