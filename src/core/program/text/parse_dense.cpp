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

// Lists nest rectangularly: every list at one depth has the same length, and values sit only
// at the deepest level (the literal's rank).
void Parser::parse_dense_list(DenseLiteral& literal, size_t level) {
  const Token open = expect("[", "to open a dense list");
  DepthGuard guard(*this, open.loc);
  if (literal.shape.size() <= level) literal.shape.resize(level + 1, -1);
  int64_t count = 0;
  if (!at_punct("]")) {
    do {
      const bool is_list = at_punct("[");
      const int64_t depth = static_cast<int64_t>(level) + (is_list ? 1 : 0);
      if (literal.leaf_level >= 0 &&
          (is_list ? depth > literal.leaf_level : depth != literal.leaf_level)) {
        fail_at(peek().loc, "dense literal is not rectangular");
      }
      if (is_list) {
        parse_dense_list(literal, level + 1);
      } else {
        literal.leaf_level = depth;
        literal.values.push_back(parse_dense_scalar());
      }
      ++count;
    } while (accept(","));
  }
  expect("]", "to close the dense list");
  if (literal.shape[level] == -1) {
    literal.shape[level] = count;
  } else if (literal.shape[level] != count) {
    fail_at(open.loc, "dense literal is not rectangular");
  }
}

void Parser::parse_dense_elements(DenseLiteral& literal) {
  if (at_punct("[")) {
    literal.is_list = true;
    parse_dense_list(literal, 0);
    for (int64_t& dim : literal.shape) {
      if (dim < 0) dim = 0;  // below an empty list
    }
    if (literal.leaf_level >= 0 &&
        literal.leaf_level + 1 != static_cast<int64_t>(literal.shape.size())) {
      fail_at(literal.loc, "dense literal is not rectangular");
    }
  } else {
    literal.values.push_back(parse_dense_scalar());
  }
}

}  // namespace ndbuf::program
