// Attributes: numbers, strings, lists, array<i64: ...>, dense<...>, #stablehlo<...> enums and
// the structured #stablehlo.NAME<...> kinds of the op table; locations are skipped.
#include "program/registry/op_registry.hpp"
#include "program/text/parser.hpp"

namespace ndbuf::program {

void Parser::skip_balanced() {
  // Called at an opening bracket; consumes through its matching closing bracket.
  int level = 0;
  const Location start = peek().loc;
  do {
    const Token token = next();
    if (token.kind == Tok::kEof) fail_at(start, "unbalanced brackets: missing closing bracket");
    if (token.kind != Tok::kPunct) continue;
    const char c = token.text[0];
    if (c == '(' || c == '[' || c == '{' || c == '<') ++level;
    if (c == ')' || c == ']' || c == '}' || c == '>') --level;
  } while (level > 0);
}

void Parser::skip_location() {
  if (!at_word("loc")) return;
  next();
  if (!at_punct("(")) error_at_peek("'('", "after 'loc'");
  skip_balanced();
}

AttrDict Parser::parse_attr_dict() {
  AttrDict attrs;
  parse_attr_dict_into(attrs);
  return attrs;
}

void Parser::parse_attr_dict_into(AttrDict& attrs) {
  const Token open = expect("{", "to open an attribute dictionary");
  DepthGuard guard(*this, open.loc);
  if (accept("}")) return;
  do {
    const Token key = next();
    if (key.kind != Tok::kBareId && key.kind != Tok::kString) {
      fail_at(key.loc, "expected an attribute name but found " + describe(key));
    }
    if (accept("=")) {
      set_attr(attrs, key.text, parse_attribute(true));
    } else {
      set_attr(attrs, key.text, Attribute{});
    }
  } while (accept(","));
  expect("}", "to close the attribute dictionary");
}

DenseLiteral Parser::parse_dense_literal() {
  DenseLiteral literal;
  literal.loc = expect("<", "after 'dense'").loc;
  if (accept(">")) {
    literal.is_list = true;
    literal.shape = {0};
    return literal;
  }
  if (peek().kind == Tok::kString) {
    literal.is_hex_blob = true;
    literal.hex = next().text;
  } else {
    parse_dense_elements(literal);
  }
  expect(">", "to close the dense literal");
  return literal;
}

Attribute Parser::parse_attribute(bool allow_type_suffix) {
  Attribute attr;
  attr.loc = peek().loc;
  DepthGuard guard(*this, attr.loc);
  const Token& token = peek();
  switch (token.kind) {
    case Tok::kInteger:
    case Tok::kFloat:
      parse_number_attribute(attr, allow_type_suffix);
      return attr;
    case Tok::kString:
      attr.kind = Attribute::Kind::kString;
      attr.text = next().text;
      break;
    case Tok::kSymbol:
      attr.kind = Attribute::Kind::kSymbol;
      attr.text = next().text;
      break;
    case Tok::kHashId:
      parse_hash_attribute(attr);
      return attr;
    case Tok::kBareId:
      parse_word_attribute(attr, allow_type_suffix);
      return attr;
    case Tok::kPunct:
      if (token.text == "[") {
        parse_list_attribute(attr);
        return attr;
      }
      if (token.text == "{") {
        attr.kind = Attribute::Kind::kStruct;
        attr.fields = parse_attr_dict();
        return attr;
      }
      if (token.text == "<" || token.text == "(") {
        attr.kind = Attribute::Kind::kOpaque;
        skip_balanced();
        return attr;
      }
      [[fallthrough]];
    default:
      error_at_peek("an attribute", "");
  }
  if (allow_type_suffix && accept(":")) attr.type = parse_type();
  return attr;
}

void Parser::parse_number_attribute(Attribute& attr, bool allow_type_suffix) {
  const Token token = next();
  if (token.kind == Tok::kInteger) {
    attr.kind = Attribute::Kind::kInt;
    errno = 0;
    const bool hex = token.text.find_first_of("xX") != std::string::npos;
    attr.integer = hex ? static_cast<int64_t>(std::strtoull(token.text.c_str(), nullptr, 16))
                       : std::strtoll(token.text.c_str(), nullptr, 10);
    if (errno == ERANGE)
      fail_at(token.loc, "integer " + quote_text(token.text) + " is out of range");
    attr.number = static_cast<double>(attr.integer);
  } else {
    attr.kind = Attribute::Kind::kFloat;
    attr.number = std::strtod(token.text.c_str(), nullptr);
  }
  if (allow_type_suffix && accept(":")) {
    const Token type_token = next();
    if (type_token.kind != Tok::kBareId) fail_at(type_token.loc, "expected a type after ':'");
    attr.name = type_token.text;  // the spelling of the number's type (chlo.constant_like)
  }
}

void Parser::parse_word_attribute(Attribute& attr, bool allow_type_suffix) {
  const Token token = next();
  if (token.text == "true" || token.text == "false") {
    attr.kind = Attribute::Kind::kBool;
    attr.flag = token.text == "true";
    if (allow_type_suffix && accept(":")) next();
    return;
  }
  if (token.text == "dense") {
    attr.kind = Attribute::Kind::kDense;
    attr.literal = std::make_shared<const DenseLiteral>(parse_dense_literal());
    if (allow_type_suffix) {
      expect(":", "after the dense literal");
      in_attribute_type_ = true;
      attr.type = parse_type();
      in_attribute_type_ = false;
      attr.dense = std::make_shared<const Tensor>(materialize_dense(*attr.literal, attr.type));
    }
    return;
  }
  if (token.text == "array") {
    parse_array_attribute(attr);
    return;
  }
  if (token.text == "loc") {
    if (!at_punct("(")) error_at_peek("'('", "after 'loc'");
    skip_balanced();
    attr.kind = Attribute::Kind::kOpaque;
    return;
  }
  if (token.text == "dense_resource" || token.text == "sparse") {
    fail_at(token.loc, quote_text(token.text) + " attributes are not supported by this runtime");
  }
  attr.kind = Attribute::Kind::kWord;
  attr.text = token.text;
  if (at_punct("<")) skip_balanced();  // e.g. a type-like word with parameters
}

void Parser::parse_array_attribute(Attribute& attr) {
  expect("<", "after 'array'");
  const Token element = next();
  const bool is_bool = element.text == "i1";
  attr.kind = Attribute::Kind::kArray;
  if (accept(":")) {
    do {
      const Token value = next();
      if (value.kind == Tok::kInteger) {
        attr.ints.push_back(std::strtoll(value.text.c_str(), nullptr, 0));
      } else if (is_bool && (value.text == "true" || value.text == "false")) {
        attr.ints.push_back(value.text == "true" ? 1 : 0);
      } else {
        fail_at(value.loc,
                "expected an integer in array<" + element.text + "> but found " + describe(value));
      }
    } while (accept(","));
  }
  expect(">", "to close the array attribute");
}

void Parser::parse_list_attribute(Attribute& attr) {
  expect("[", "to open a list");
  attr.kind = Attribute::Kind::kList;
  if (!accept("]")) {
    do {
      attr.items.push_back(parse_attribute(true));
    } while (accept(","));
    expect("]", "to close the list");
  }
  bool all_ints = true;
  for (const Attribute& item : attr.items)
    all_ints = all_ints && item.kind == Attribute::Kind::kInt;
  if (all_ints) {
    attr.kind = Attribute::Kind::kArray;
    for (const Attribute& item : attr.items) attr.ints.push_back(item.integer);
  }
}

void Parser::parse_hash_attribute(Attribute& attr) {
  const Token token = next();
  attr.text = token.text;
  if (!at_punct("<")) {
    attr.kind = Attribute::Kind::kOpaque;  // an alias such as #loc3
    return;
  }
  if (token.text == "stablehlo" || token.text == "chlo") {
    expect("<", "in an enum attribute");
    attr.kind = Attribute::Kind::kEnum;
    attr.name = expect_kind(Tok::kBareId, "an enum kind", "in an enum attribute").text;
    attr.text = expect_kind(Tok::kBareId, "an enum value", "in an enum attribute").text;
    expect(">", "to close the enum attribute");
    return;
  }
  // Other dialects' attributes are never read: kept opaque. A #stablehlo.NAME<...> must be
  // one the table knows, so a misspelt or newer kind is an error, not silently dropped.
  const bool stablehlo = token.text.rfind("stablehlo.", 0) == 0;
  const StructuredForm* form = stablehlo ? structured_attr_form(token.text) : nullptr;
  if (stablehlo && form == nullptr) {
    fail_at(token.loc, "unknown StableHLO attribute " + quote_text("#" + token.text));
  }
  switch (form == nullptr ? StructuredForm::kSkipped : *form) {
    case StructuredForm::kFields:
      break;
    case StructuredForm::kSkipped:
      attr.kind = Attribute::Kind::kOpaque;
      skip_balanced();
      return;
#define NDBUF_STRUCTURED_FORM(form, parser) \
  case StructuredForm::form:                \
    parser(attr);                           \
    return;
#include "program/registry/ops.def"
  }
  expect("<", "in a structured attribute");
  attr.kind = Attribute::Kind::kStruct;
  if (!accept(">")) {
    do {
      const Token key =
          expect_kind(Tok::kBareId, "a field name", "in " + quote_text("#" + token.text + "<...>"));
      expect("=", "after the field name");
      set_attr(attr.fields, key.text, parse_attribute(false));
    } while (accept(","));
    expect(">", "to close " + quote_text("#" + token.text + "<...>"));
  }
}

}  // namespace ndbuf::program
