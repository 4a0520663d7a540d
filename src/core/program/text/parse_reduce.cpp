// The pretty form of stablehlo.reduce: `(%x init: %c) applies stablehlo.add across
// dimensions = [1] : ...`, or `... across dimensions = [..] : ... reducer(%a: T, %b: T) {..}`.
#include "program/ir/op_names.hpp"
#include "program/text/parser.hpp"

namespace ndbuf::program {

// A region computing `name(%lhs, %rhs)` on two scalars, for the `applies` form.
Region Parser::applied_region(const std::string& name, const Type& scalar, const Location& loc) {
  Region region;
  region.loc = loc;
  scopes_.emplace_back();
  const int lhs = define_value(" lhs", scalar, loc);
  const int rhs = define_value(" rhs", scalar, loc);
  region.args = {lhs, rhs};
  region.arg_types = {scalar, scalar};
  Op body;
  body.name = canonical_op_name(name);
  body.id = op_id(body.name);
  body.loc = loc;
  body.operands = {lhs, rhs};
  body.operand_types = {scalar, scalar};
  body.result_types = {scalar};
  body.results = {define_value(" result", scalar, loc)};
  Op ret;
  ret.name = "return";
  ret.id = OpId::kReturn;
  ret.loc = loc;
  ret.operands = body.results;
  ret.operand_types = {scalar};
  region.ops.push_back(std::move(body));
  region.ops.push_back(std::move(ret));
  scopes_.pop_back();
  return region;
}

void Parser::parse_reduce(Op& op) {
  std::vector<int> inputs, inits;
  do {
    expect("(", "to open an input of 'stablehlo.reduce'");
    inputs.push_back(use_value(next()));
    if (!accept_word("init")) error_at_peek("'init'", "in 'stablehlo.reduce'");
    expect(":", "after 'init'");
    inits.push_back(use_value(next()));
    expect(")", "to close an input of 'stablehlo.reduce'");
  } while (accept(","));
  op.operands = inputs;
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  std::string applied;
  Location applied_loc;
  if (accept_word("applies")) {
    applied_loc = peek().loc;
    applied = expect_kind(Tok::kBareId, "an op name", "after 'applies'").text;
  }
  if (!accept_word("across")) error_at_peek("'across'", "in 'stablehlo.reduce'");
  if (!accept_word("dimensions")) error_at_peek("'dimensions'", "in 'stablehlo.reduce'");
  expect("=", "after 'dimensions'");
  set_attr(op.attrs, "dimensions", parse_attribute(false));
  finish_functional(op);
  if (!applied.empty()) {
    const Type& init = op.operand_types.back();
    if (inputs.size() != 1 || !init.is_tensor()) fail_at(applied_loc, "'applies' needs one input");
    op.regions.push_back(applied_region(applied, init, applied_loc));
    return;
  }
  if (!accept_word("reducer")) error_at_peek("'reducer'", "in 'stablehlo.reduce'");
  std::vector<std::pair<std::string, Type>> accumulators, values;
  for (size_t k = 0; k < inputs.size(); ++k) {
    expect("(", "to open a reducer argument pair");
    for (auto* list : {&accumulators, &values}) {
      const Token name = expect_kind(Tok::kValueId, "a reducer argument", "");
      expect(":", "after the reducer argument");
      list->emplace_back(name.text, parse_type());
      skip_location();
      if (list == &accumulators) expect(",", "between the reducer arguments");
    }
    expect(")", "to close a reducer argument pair");
  }
  accumulators.insert(accumulators.end(), values.begin(), values.end());
  op.regions.push_back(parse_region(accumulators));
}

}  // namespace ndbuf::program
