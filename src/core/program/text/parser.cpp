// Module structure: module { func.func ... }, function signatures, regions and blocks, value
// names and their scopes (regions see the values defined above them).
#include "program/text/parser.hpp"

namespace ndbuf::program {

Module parse_program(std::string_view text) {
  Parser parser(text);
  return parser.parse_module();
}

Parser::DepthGuard::DepthGuard(Parser& p, const Location& loc) : parser(p) {
  if (++parser.depth_ > kMaxNesting) {
    --parser.depth_;
    fail_at(loc, "program is nested too deeply (more than " + std::to_string(kMaxNesting) +
                     " levels of regions, lists or types)");
  }
}

bool Parser::accept(std::string_view p) {
  if (!at_punct(p)) return false;
  next();
  return true;
}

bool Parser::accept_word(std::string_view w) {
  if (!at_word(w)) return false;
  next();
  return true;
}

void Parser::error_at_peek(const std::string& expected, std::string_view context) {
  const Token& token = peek();
  std::string message = "expected " + expected;
  if (!context.empty()) message += " " + std::string(context);
  fail_at(token.loc, message + " but found " + describe(token));
}

Token Parser::expect(std::string_view p, std::string_view context) {
  if (!at_punct(p)) error_at_peek("'" + std::string(p) + "'", context);
  return next();
}

Token Parser::expect_kind(Tok kind, std::string_view what, std::string_view context) {
  if (peek().kind != kind) error_at_peek(std::string(what), context);
  return next();
}

int Parser::define_value(const std::string& name, const Type& type, const Location& loc) {
  auto& scope = scopes_.back();
  const int id = static_cast<int>(value_types_.size());
  if (!scope.emplace(name, id).second)
    fail_at(loc, "redefinition of value " + quote_text("%" + name));
  value_types_.push_back(type);
  return id;
}

int Parser::use_value(const Token& token) {
  if (token.kind != Tok::kValueId)
    fail_at(token.loc, "expected a value but found " + describe(token));
  if (const int id = find_value(token.text); id >= 0) return id;
  // A group of one result (`%s = op` or `%s:1 = op`) is defined under its name alone; as in
  // MLIR, `%s#0` names that result too.
  const std::string first_of_group = "#0";
  const std::string& text = token.text;
  if (text.size() > first_of_group.size() &&
      text.compare(text.size() - first_of_group.size(), first_of_group.size(), first_of_group) ==
          0) {
    const int id = find_value(text.substr(0, text.size() - first_of_group.size()));
    if (id >= 0) return id;
  }
  fail_at(token.loc, "use of undefined value " + quote_text("%" + token.text));
}

int Parser::find_value(const std::string& name) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(name);
    if (it != scope->end()) return it->second;
  }
  return -1;
}

std::vector<int> Parser::parse_operand_list() {
  std::vector<int> operands;
  if (peek().kind != Tok::kValueId) return operands;
  do {
    operands.push_back(use_value(next()));
  } while (accept(","));
  return operands;
}

Module Parser::parse_module() {
  Module module;
  bool braced = false;
  for (;;) {
    const Token& token = peek();
    if (token.kind == Tok::kEof) break;
    if (token.kind == Tok::kHashId) {  // #loc3 = loc(...) and other aliases
      next();
      expect("=", "after an attribute alias");
      parse_attribute(true);
    } else if (at_word("module") && !braced) {
      next();
      if (peek().kind == Tok::kSymbol) next();
      if (accept_word("attributes")) module.attrs = parse_attr_dict();
      expect("{", "to open the module");
      braced = true;
    } else if (at_word("func.func")) {
      Function fn = parse_function();
      if (module.by_name.count(fn.name) > 0)
        fail_at(fn.loc, "redefinition of function " + quote_text("@" + fn.name));
      module.by_name[fn.name] = module.functions.size();
      module.functions.push_back(std::move(fn));
    } else if (braced && at_punct("}")) {
      next();
      skip_location();
      braced = false;
    } else {
      error_at_peek("'func.func'", "at the top level");
    }
  }
  if (braced) fail_at(lex_.location(), "missing '}' to close the module");
  return module;
}

void Parser::parse_function_signature(Function& fn) {
  expect("(", "to open the argument list of " + quote_text("@" + fn.name, "", ""));
  if (!accept(")")) {
    do {
      const Token name =
          expect_kind(Tok::kValueId, "an argument name", "in " + quote_text("@" + fn.name, "", ""));
      expect(":", "after the argument name");
      const Type type = parse_type();
      std::optional<int64_t> alias;
      if (at_punct("{")) {
        const AttrDict attrs = parse_attr_dict();
        if (const Attribute* a = find_attr(attrs, "tf.aliasing_output")) alias = a->integer;
      }
      skip_location();
      fn.body.args.push_back(define_value(name.text, type, name.loc));
      fn.body.arg_types.push_back(type);
      fn.aliasing_output.push_back(alias);
    } while (accept(","));
    expect(")", "to close the argument list");
  }
  if (accept("->")) {
    if (accept("(")) {
      if (!accept(")")) {
        fn.result_types = parse_type_list(true);
        expect(")", "to close the result types");
      }
    } else {
      fn.result_types.push_back(parse_type());
    }
  }
  if (accept_word("attributes")) parse_attr_dict();
}

Function Parser::parse_function() {
  next();  // func.func
  Function fn;
  while (at_word("public") || at_word("private") || at_word("nested")) {
    fn.is_public = next().text != "private";
  }
  const Token name = expect_kind(Tok::kSymbol, "a function name", "after 'func.func'");
  fn.name = name.text;
  fn.loc = name.loc;
  fn.body.loc = name.loc;
  value_types_.clear();
  scopes_.assign(1, {});
  fn_ = &fn;
  parse_function_signature(fn);
  if (at_punct("{")) {
    fn.has_body = true;
    const Token open = next();
    DepthGuard guard(*this, open.loc);
    while (!at_punct("}")) {
      if (peek().kind == Tok::kEof)
        fail_at(open.loc, "missing '}' to close " + quote_text("@" + fn.name, "", ""));
      if (peek().kind == Tok::kBlockId)
        fail_at(peek().loc, "functions with several blocks are not supported by this runtime");
      parse_op(fn.body);
    }
    next();
  }
  skip_location();
  fn.num_values = static_cast<int>(value_types_.size());
  fn.value_types = value_types_;
  fn_ = nullptr;
  return fn;
}

Region Parser::parse_region(const std::vector<std::pair<std::string, Type>>& implicit_args) {
  Region region;
  const Token open = expect("{", "to open a region");
  region.loc = open.loc;
  DepthGuard guard(*this, open.loc);
  scopes_.emplace_back();
  for (const auto& [name, type] : implicit_args) {
    region.args.push_back(define_value(name, type, open.loc));
    region.arg_types.push_back(type);
  }
  if (peek().kind == Tok::kBlockId) {
    next();
    if (accept("(")) {
      if (!accept(")")) {
        do {
          const Token name = expect_kind(Tok::kValueId, "a block argument", "in the block header");
          expect(":", "after the block argument");
          const Type type = parse_type();
          skip_location();
          region.args.push_back(define_value(name.text, type, name.loc));
          region.arg_types.push_back(type);
        } while (accept(","));
        expect(")", "to close the block arguments");
      }
    }
    expect(":", "after the block header");
  }
  while (!at_punct("}")) {
    if (peek().kind == Tok::kEof) fail_at(open.loc, "missing '}' to close the region");
    if (peek().kind == Tok::kBlockId)
      fail_at(peek().loc, "regions with several blocks are not supported by this runtime");
    parse_op(region);
  }
  next();
  scopes_.pop_back();
  return region;
}

}  // namespace ndbuf::program
