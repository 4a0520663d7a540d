// Pretty (custom assembly) op forms: `op %a, %b, key = value : types`, with the attribute
// names of the pretty form mapped to those of the generic form (the op table's spellings).
#include "program/ir/op_names.hpp"
#include "program/registry/op_registry.hpp"
#include "program/text/parser.hpp"

namespace ndbuf::program {
namespace {

Attribute int_attr(int64_t value, const Location& loc) {
  Attribute attr;
  attr.kind = Attribute::Kind::kInt;
  attr.integer = value;
  attr.loc = loc;
  return attr;
}

Attribute word_attr(const std::string& text, const Location& loc) {
  Attribute attr;
  attr.kind = Attribute::Kind::kEnum;
  attr.text = text;
  attr.loc = loc;
  return attr;
}

// `batching_dims = [0] x [0]` -> the lhs_/rhs_ fields of #stablehlo.dot<...>.
void add_dot_pair(Attribute& numbers, const Attribute& pair, const std::string& what) {
  if (pair.kind != Attribute::Kind::kList || pair.items.size() != 2) {
    fail_at(pair.loc, "expected '[...] x [...]' for " + what + "_dims");
  }
  set_attr(numbers.fields, "lhs_" + what + "_dimensions", pair.items[0]);
  set_attr(numbers.fields, "rhs_" + what + "_dimensions", pair.items[1]);
}

// `format = e5m10` -> exponent_bits = 5, mantissa_bits = 10.
void add_precision_format(AttrDict& attrs, const Attribute& format) {
  const std::string& text = format.text;
  const size_t m = text.find('m');
  if (format.kind != Attribute::Kind::kWord || text.size() < 4 || text[0] != 'e' ||
      m == std::string::npos) {
    fail_at(format.loc, "expected a format such as 'e5m10'");
  }
  set_attr(attrs, "exponent_bits", int_attr(std::atoll(text.c_str() + 1), format.loc));
  set_attr(attrs, "mantissa_bits", int_attr(std::atoll(text.c_str() + m + 1), format.loc));
}

void canonicalize(Op& op, const std::vector<std::pair<std::string, Location>>& words) {
  const OpRow* row = find_op(op.name);
  AttrDict renamed;
  Attribute dot_numbers;
  dot_numbers.kind = Attribute::Kind::kStruct;
  for (auto& [key, value] : op.attrs) {
    const std::string name = row == nullptr ? key : std::string(generic_attr_name(*row, key));
    if (op.name == "stablehlo.dot_general" &&
        (key == "batching_dims" || key == "contracting_dims")) {
      add_dot_pair(dot_numbers, value, key.substr(0, key.find('_')));
    } else if (op.name == "stablehlo.reduce_precision" && key == "format") {
      add_precision_format(renamed, value);
    } else {
      set_attr(renamed, name, value);
    }
  }
  if (!dot_numbers.fields.empty()) set_attr(renamed, "dot_dimension_numbers", dot_numbers);
  if (op.name == "stablehlo.compare") {
    if (words.empty()) fail_at(op.loc, "expected a comparison direction for 'stablehlo.compare'");
    set_attr(renamed, "comparison_direction", word_attr(words[0].first, words[0].second));
    if (words.size() > 1)
      set_attr(renamed, "compare_type", word_attr(words[1].first, words[1].second));
  } else if (!words.empty()) {
    fail_at(words[0].second,
            "unexpected " + quote_text(words[0].first) + " in " + quote_text(op.name));
  }
  op.attrs = std::move(renamed);
}

}  // namespace

void Parser::parse_pretty_items(Op& op, std::vector<std::pair<std::string, Location>>& words) {
  for (;;) {
    const Token& token = peek();
    if (token.kind == Tok::kValueId) {
      op.operands.push_back(use_value(next()));
    } else if (token.kind == Tok::kBareId && token.text == "loc") {
      break;
    } else if (token.kind == Tok::kBareId && token.text == "dense") {
      set_attr(op.attrs, "expected", parse_attribute(false));
    } else if (token.kind == Tok::kBareId) {
      const Token word = next();
      if (accept("=")) {
        Attribute value = parse_attribute(false);
        if (accept_word("x")) {
          Attribute pair;
          pair.kind = Attribute::Kind::kList;
          pair.loc = value.loc;
          pair.items = {value, parse_attribute(false)};
          value = pair;
        }
        set_attr(op.attrs, word.text, value);
      } else {
        words.emplace_back(word.text, word.loc);
      }
    } else {
      break;
    }
    if (!accept(",")) break;
  }
}

void Parser::parse_pretty_op(Op& op, size_t declared) {
  if (!is_supported_op(op.name)) {
    fail_at(op.loc, "op " + quote_text(op.name) + " is not supported by this runtime");
  }
  if (parse_pretty_special(op, declared)) return;
  std::vector<std::pair<std::string, Location>> words;
  parse_pretty_items(op, words);
  canonicalize(op, words);
  if (at_punct("{")) parse_attr_dict_into(op.attrs);
  if (op.name == "return" && !at_punct(":")) {
    if (!op.operands.empty()) error_at_peek("':'", "after the returned values");
    return;
  }
  expect(":", "before the type of " + quote_text(op.name));
  resolve_types(op, parse_signature(), declared);
  if (at_punct("{")) parse_attr_dict_into(op.attrs);
  for (auto& [key, value] : op.attrs) {
    if (value.kind == Attribute::Kind::kDense && !value.dense) {
      if (op.operand_types.empty()) fail_at(value.loc, "no type for the dense literal");
      value.type = op.operand_types[0];
      value.dense = std::make_shared<const Tensor>(materialize_dense(*value.literal, value.type));
    }
  }
}

}  // namespace ndbuf::program
