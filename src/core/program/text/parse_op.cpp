// One op: result names, then the generic form ("name"(...) ... : functional type) or a pretty
// form; result values are defined after the op (its regions cannot see them).
#include "program/ir/op_names.hpp"
#include "program/text/parser.hpp"

namespace ndbuf::program {
namespace {

struct ResultGroup {
  std::string name;
  int64_t count = 1;
  Location loc;
};

constexpr int64_t kMaxResults = 1 << 16;

}  // namespace

void Parser::parse_op(Region& region) {
  std::vector<ResultGroup> groups;
  size_t declared = 0;
  if (peek().kind == Tok::kValueId) {
    do {
      const Token name = expect_kind(Tok::kValueId, "a result name", "");
      ResultGroup group{name.text, 1, name.loc};
      if (accept(":")) {
        const Token count = expect_kind(Tok::kInteger, "a result count", "after ':'");
        group.count = std::strtoll(count.text.c_str(), nullptr, 10);
        if (group.count < 1 || group.count > kMaxResults) {
          fail_at(count.loc, "invalid result count " + quote_text(count.text));
        }
      }
      declared += static_cast<size_t>(group.count);
      groups.push_back(group);
    } while (accept(","));
    expect("=", "after the result names");
  }
  const Token name = next();
  Op op;
  op.loc = name.loc;
  if (name.kind == Tok::kString) {
    op.name = canonical_op_name(name.text);
    parse_generic_op(op, declared);
  } else if (name.kind == Tok::kBareId) {
    op.name = canonical_op_name(name.text);
    parse_pretty_op(op, declared);
  } else {
    fail_at(name.loc, "expected an operation but found " + describe(name));
  }
  op.id = op_id(op.name);
  skip_location();
  if (op.result_types.size() != declared) {
    fail_at(op.loc, quote_text(op.name) + " has " + std::to_string(op.result_types.size()) +
                        " results but " + std::to_string(declared) + " result names were given");
  }
  size_t next_type = 0;
  for (const ResultGroup& group : groups) {
    for (int64_t k = 0; k < group.count; ++k) {
      const std::string value_name =
          group.count == 1 ? group.name : group.name + "#" + std::to_string(k);
      op.results.push_back(define_value(value_name, op.result_types[next_type++], group.loc));
    }
  }
  region.ops.push_back(std::move(op));
}

void Parser::parse_generic_op(Op& op, size_t declared_results) {
  (void)declared_results;
  // No op this runtime runs has a name this long; refused here, where the name is quoted cut
  // to length (shorter unknown names are refused when the op is planned).
  if (op.name.size() > kQuoteWholeChars && !is_supported_op(op.name)) {
    fail_at(op.loc, "op " + quote_text(op.name) + " is not supported by this runtime");
  }
  expect("(", "to open the operand list of " + quote_text(op.name));
  if (!accept(")")) {
    op.operands = parse_operand_list();
    expect(")", "to close the operand list");
  }
  if (at_punct("[")) fail_at(peek().loc, "successor blocks are not supported by this runtime");
  if (accept("<")) {
    parse_attr_dict_into(op.attrs);
    expect(">", "to close the properties");
  }
  if (accept("(")) {
    do {
      op.regions.push_back(parse_region({}));
    } while (accept(","));
    expect(")", "to close the region list");
  }
  if (at_punct("{")) parse_attr_dict_into(op.attrs);
  expect(":", "before the type of " + quote_text(op.name));
  const TypeSignature sig = parse_signature();
  if (!sig.functional) {
    fail_at(sig.loc,
            "expected a function type '(operand types) -> result types' for '" + op.name + "'");
  }
  op.operand_types = sig.inputs;
  op.result_types = sig.outputs;
}

void Parser::resolve_types(Op& op, const TypeSignature& sig, size_t declared) {
  const size_t n = op.operands.size();
  const auto& types = sig.inputs;
  if (sig.functional) {
    op.operand_types = sig.inputs;
    op.result_types = sig.outputs;
    return;
  }
  const auto count_error = [&] {
    fail_at(sig.loc, quote_text(op.name) + " has " + std::to_string(n) + " operands but " +
                         std::to_string(types.size()) + " types were given");
  };
  if (op.name == "stablehlo.tuple") {
    if (types.size() != 1 || types[0].kind != Type::Kind::kTuple) {
      fail_at(sig.loc, "expected one tuple type for 'stablehlo.tuple'");
    }
    op.operand_types = types[0].elements;
    op.result_types = types;
    return;
  }
  const bool pairwise = op.name == "return" || op.name == "stablehlo.optimization_barrier" ||
                        op.name == "stablehlo.while";
  if (pairwise) {
    if (types.size() != n) count_error();
    op.operand_types = types;
    if (op.name != "return") op.result_types = types;
    return;
  }
  if (op.name == "stablehlo.select" && types.size() == 2) {
    op.operand_types = {types[0], types[1], types[1]};
    op.result_types.assign(declared, types[1]);
    return;
  }
  if (op.name == "stablehlo.complex" && types.size() == 1 && types[0].is_tensor()) {
    const DType part = types[0].dtype == DType::kC128 ? DType::kF64 : DType::kF32;
    op.operand_types.assign(n, Type::tensor(part, types[0].shape));
    op.result_types.assign(declared, types[0]);
    return;
  }
  if (types.size() == 1) {
    op.operand_types.assign(n, types[0]);
    op.result_types.assign(declared, types[0]);
    return;
  }
  if (types.size() != n || declared != 0) count_error();
  op.operand_types = types;
}

}  // namespace ndbuf::program
