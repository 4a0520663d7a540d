// The element text of dense<...>: one splat value or rectangular nested lists of values.
#include "program/text/parser.hpp"

namespace ndbuf::program {

DenseScalar Parser::parse_dense_scalar() {
  DenseScalar scalar;
  const Token token = next();
  scalar.loc = token.loc;
  if (token.kind == Tok::kInteger || token.kind == Tok::kFloat) {
    scalar.real = token.text;
    return scalar;
  }
  if (token.kind == Tok::kBareId && (token.text == "true" || token.text == "false")) {
    scalar.kind = DenseScalar::Kind::kBool;
    scalar.real = token.text;
    return scalar;
  }
  if (token.kind == Tok::kPunct && token.text == "(") {
    scalar.kind = DenseScalar::Kind::kComplex;
    const Token re = next();
    expect(",", "between the real and imaginary parts");
    const Token im = next();
    expect(")", "to close the complex value");
    for (const Token* part : {&re, &im}) {
      if (part->kind != Tok::kInteger && part->kind != Tok::kFloat) {
        fail_at(part->loc, "expected a number in a complex value but found " + describe(*part));
      }
    }
    scalar.real = re.text;
    scalar.imag = im.text;
    return scalar;
  }
  fail_at(token.loc, "expected a value in the dense literal but found " + describe(token));
}

void Parser::parse_dense_list(DenseLiteral& literal, size_t level) {
  const Token open = expect("[", "to open a dense list");
  DepthGuard guard(*this, open.loc);
  int64_t count = 0;
  bool has_lists = false;
  if (!at_punct("]")) {
    do {
      if (at_punct("[")) {
        if (count > 0 && !has_lists) fail_at(peek().loc, "dense literal mixes lists and values");
        has_lists = true;
        parse_dense_list(literal, level + 1);
      } else {
        if (has_lists) fail_at(peek().loc, "dense literal mixes lists and values");
        if (literal.shape.size() > level + 1) {
          fail_at(peek().loc, "dense literal is not rectangular");
        }
        literal.values.push_back(parse_dense_scalar());
      }
      ++count;
    } while (accept(","));
  }
  expect("]", "to close the dense list");
  if (literal.shape.size() == level) {
    literal.shape.push_back(count);
  } else if (literal.shape[level] != count ||
             (!has_lists && count > 0 && literal.shape.size() != level + 1)) {
    fail_at(open.loc, "dense literal is not rectangular");
  }
}

void Parser::parse_dense_elements(DenseLiteral& literal) {
  if (at_punct("[")) {
    literal.is_list = true;
    parse_dense_list(literal, 0);
  } else {
    literal.values.push_back(parse_dense_scalar());
  }
}

}  // namespace ndbuf::program
