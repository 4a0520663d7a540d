// Pretty forms with their own syntax (the op table's NDBUF_PRETTY_FORM rows): the dispatch to
// their parsers, and the parsers of constant, call, slice, get_tuple_element, while and top_k
// (reduce, custom_call and convolution have files of their own).
#include "program/registry/op_registry.hpp"
#include "program/text/parser.hpp"

namespace ndbuf::program {
namespace {

Attribute ints_attr(std::vector<int64_t> values, const Location& loc) {
  Attribute attr;
  attr.kind = Attribute::Kind::kArray;
  attr.ints = std::move(values);
  attr.loc = loc;
  return attr;
}

}  // namespace

bool Parser::parse_pretty_special(Op& op, size_t declared) {
  (void)declared;
  const OpRow* row = find_op(op.name);
  switch (row == nullptr ? PrettyForm::kItems : row->pretty) {
    case PrettyForm::kItems:
      return false;
#define NDBUF_PRETTY_FORM(form, parser) \
  case PrettyForm::form:                \
    parser(op);                         \
    return true;
#include "program/registry/ops.def"
  }
  return false;
}

void Parser::finish_functional(Op& op) {
  if (at_punct("{")) parse_attr_dict_into(op.attrs);
  expect(":", "before the type of " + quote_text(op.name));
  const TypeSignature sig = parse_signature();
  if (!sig.functional) fail_at(sig.loc, "expected a function type for " + quote_text(op.name));
  op.operand_types = sig.inputs;
  op.result_types = sig.outputs;
}

void Parser::parse_constant(Op& op) {
  if (at_punct("{")) parse_attr_dict_into(op.attrs);
  Attribute value = parse_attribute(true);
  if (value.kind != Attribute::Kind::kDense) fail_at(value.loc, "expected a dense<...> value");
  op.result_types = {value.type};
  set_attr(op.attrs, "value", std::move(value));
}

void Parser::parse_call(Op& op) {
  const Token callee = expect_kind(Tok::kSymbol, "a function name", "after 'func.call'");
  Attribute symbol;
  symbol.kind = Attribute::Kind::kSymbol;
  symbol.text = callee.text;
  symbol.loc = callee.loc;
  set_attr(op.attrs, "callee", symbol);
  expect("(", "to open the call's arguments");
  if (!accept(")")) {
    op.operands = parse_operand_list();
    expect(")", "to close the call's arguments");
  }
  finish_functional(op);
}

void Parser::parse_slice(Op& op) {
  op.operands.push_back(use_value(next()));
  const Location loc = expect("[", "to open the slice ranges").loc;
  std::vector<int64_t> start, limit, stride;
  if (!accept("]")) {
    do {
      auto bound = [&] {
        return std::strtoll(
            expect_kind(Tok::kInteger, "an integer", "in a slice range").text.c_str(), nullptr, 10);
      };
      start.push_back(bound());
      expect(":", "in a slice range");
      limit.push_back(bound());
      stride.push_back(accept(":") ? bound() : 1);
    } while (accept(","));
    expect("]", "to close the slice ranges");
  }
  set_attr(op.attrs, "start_indices", ints_attr(start, loc));
  set_attr(op.attrs, "limit_indices", ints_attr(limit, loc));
  set_attr(op.attrs, "strides", ints_attr(stride, loc));
  finish_functional(op);
}

void Parser::parse_get_tuple_element(Op& op) {
  op.operands.push_back(use_value(next()));
  expect("[", "before the tuple index");
  const Token index = expect_kind(Tok::kInteger, "a tuple index", "");
  expect("]", "after the tuple index");
  Attribute attr;
  attr.kind = Attribute::Kind::kInt;
  attr.integer = std::strtoll(index.text.c_str(), nullptr, 10);
  attr.loc = index.loc;
  set_attr(op.attrs, "index", attr);
  finish_functional(op);
}

void Parser::parse_while(Op& op) {
  expect("(", "after 'stablehlo.while'");
  std::vector<Token> names;
  if (!accept(")")) {
    do {
      names.push_back(expect_kind(Tok::kValueId, "a loop variable", "in 'stablehlo.while'"));
      expect("=", "after the loop variable");
      op.operands.push_back(use_value(next()));
    } while (accept(","));
    expect(")", "to close the loop variables");
  }
  if (accept(":")) op.operand_types = parse_type_list();
  if (op.operand_types.size() != names.size()) {
    fail_at(op.loc, "'stablehlo.while' has " + std::to_string(names.size()) +
                        " loop variables but " + std::to_string(op.operand_types.size()) +
                        " types");
  }
  if (accept_word("attributes")) parse_attr_dict_into(op.attrs);
  op.result_types = op.operand_types;
  std::vector<std::pair<std::string, Type>> args;
  for (size_t k = 0; k < names.size(); ++k) args.emplace_back(names[k].text, op.operand_types[k]);
  if (!accept_word("cond")) error_at_peek("'cond'", "in 'stablehlo.while'");
  op.regions.push_back(parse_region(args));
  if (!accept_word("do")) error_at_peek("'do'", "in 'stablehlo.while'");
  op.regions.push_back(parse_region(args));
}

void Parser::parse_top_k(Op& op) {
  expect("(", "after 'chlo.top_k'");
  op.operands.push_back(use_value(next()));
  expect(",", "after the operand of 'chlo.top_k'");
  if (!accept_word("k")) error_at_peek("'k'", "in 'chlo.top_k'");
  expect("=", "after 'k'");
  Attribute k = parse_attribute(false);
  set_attr(op.attrs, "k", k);
  expect(")", "to close 'chlo.top_k'");
  finish_functional(op);
}

}  // namespace ndbuf::program
