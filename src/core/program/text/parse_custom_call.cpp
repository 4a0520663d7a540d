// The pretty form of stablehlo.custom_call:
//   %r:2 = stablehlo.custom_call @target(%a, %b) {api_version = 4 : i32, ...} : (T, T) -> (T, T)
// The symbol becomes call_target_name, unless the attribute dictionary names one itself
// (the dictionary's entry wins, as it does in MLIR's printer-parser pair).
#include "program/text/parser.hpp"

namespace ndbuf::program {

void Parser::parse_custom_call(Op& op) {
  const Token target = expect_kind(Tok::kSymbol, "a target name", "after 'stablehlo.custom_call'");
  expect("(", "to open the operands of 'stablehlo.custom_call'");
  if (!accept(")")) {
    op.operands = parse_operand_list();
    expect(")", "to close the operands of 'stablehlo.custom_call'");
  }
  finish_functional(op);
  if (find_attr(op.attrs, "call_target_name") == nullptr) {
    Attribute name;
    name.kind = Attribute::Kind::kString;
    name.text = target.text;
    name.loc = target.loc;
    set_attr(op.attrs, "call_target_name", name);
  }
}

}  // namespace ndbuf::program
