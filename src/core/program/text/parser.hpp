// Recursive-descent parser from MLIR text to the typed IR (generic and pretty op forms).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "program/ir/module.hpp"
#include "program/text/dense_literal.hpp"
#include "program/text/lexer.hpp"

namespace ndbuf::program {

// Parses a whole program; every error names line:column and the offending token.
Module parse_program(std::string_view text);

// Nesting (regions, lists, types) deeper than this is an error rather than a stack overflow.
inline constexpr int kMaxNesting = 256;

// The types after an op's ':': `T`, `T, T`, `(T, T) -> T`, `T -> (T, T)`.
struct TypeSignature {
  std::vector<Type> inputs;
  std::vector<Type> outputs;
  bool functional = false;
  Location loc;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lex_(text) {}
  Module parse_module();

  // Tokens.
  const Token& peek() { return lex_.peek(); }
  Token next() { return lex_.next(); }
  bool at_punct(std::string_view p) { return peek().kind == Tok::kPunct && peek().text == p; }
  bool at_word(std::string_view w) { return peek().kind == Tok::kBareId && peek().text == w; }
  bool accept(std::string_view p);
  bool accept_word(std::string_view w);
  Token expect(std::string_view p, std::string_view context);
  Token expect_kind(Tok kind, std::string_view what, std::string_view context);
  [[noreturn]] void error_at_peek(const std::string& expected, std::string_view context);

  // Types (parse_type.cpp).
  Type parse_type();
  DType parse_element_type();
  std::vector<Type> parse_type_list(bool with_attributes = false);
  TypeSignature parse_signature();

  // Attributes (parse_attr.cpp).
  Attribute parse_attribute(bool allow_type_suffix);
  AttrDict parse_attr_dict();
  void parse_attr_dict_into(AttrDict& attrs);
  void skip_location();
  void skip_balanced();
  DenseLiteral parse_dense_literal();
  void parse_dense_elements(DenseLiteral& literal);
  void parse_dense_list(DenseLiteral& literal, size_t level);
  DenseScalar parse_dense_scalar();
  void parse_number_attribute(Attribute& attr, bool allow_type_suffix);
  void parse_word_attribute(Attribute& attr, bool allow_type_suffix);
  void parse_array_attribute(Attribute& attr);
  void parse_list_attribute(Attribute& attr);
  void parse_hash_attribute(Attribute& attr);
  // The readers of structured attributes with syntax of their own (ops.def's
  // NDBUF_STRUCTURED_FORM rows), called after the attribute's name.
#define NDBUF_STRUCTURED_FORM(form, parser) void parser(Attribute& attr);
#include "program/registry/ops.def"

  // Values and ops (parser.cpp, parse_op.cpp, parse_pretty.cpp).
  int use_value(const Token& token);
  int find_value(const std::string& name) const;  // -1 where no scope defines it
  int define_value(const std::string& name, const Type& type, const Location& loc);
  void parse_op(Region& region);
  void parse_generic_op(Op& op, size_t declared_results);
  void parse_pretty_op(Op& op, size_t declared_results);
  Region parse_region(const std::vector<std::pair<std::string, Type>>& implicit_args);
  std::vector<int> parse_operand_list();
  void resolve_types(Op& op, const TypeSignature& sig, size_t declared_results);

  // Nesting guard used by every recursive production.
  struct DepthGuard {
    Parser& parser;
    DepthGuard(Parser& p, const Location& loc);
    ~DepthGuard() { --parser.depth_; }
  };

 private:
  Function parse_function();
  void parse_function_signature(Function& fn);
  void parse_pretty_items(Op& op, std::vector<std::pair<std::string, Location>>& words);
  bool parse_pretty_special(Op& op, size_t declared_results);
  // The parsers of pretty forms with syntax of their own (ops.def's NDBUF_PRETTY_FORM rows).
#define NDBUF_PRETTY_FORM(form, parser) void parser(Op& op);
#include "program/registry/ops.def"
  Region applied_region(const std::string& name, const Type& scalar, const Location& loc);
  void finish_functional(Op& op);

  Lexer lex_;
  Function* fn_ = nullptr;
  std::vector<std::unordered_map<std::string, int>> scopes_;
  std::vector<Type> value_types_;
  int depth_ = 0;
  // Inside the type of a dense<...> attribute, where `index` elements (layouts) read as i64.
  bool in_attribute_type_ = false;

  friend struct DepthGuard;
};

}  // namespace ndbuf::program
