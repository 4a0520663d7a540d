// stablehlo.convolution's own syntax, as the dialect prints it:
//   stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//     window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1],
//               rhs_dilate = [1, 1], reverse = [false, false]} {attr-dict} : (T, T) -> T
// and the dimension numbers of the generic form, #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>
// or #stablehlo.conv<raw input_batch_dimension = 0, ...>. Both become a structure whose fields
// are named as in the spec; the window entries become the generic form's attributes.
#include <cstdlib>
#include <set>

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

Attribute ints_attr(std::vector<int64_t> values, const Location& loc) {
  Attribute attr;
  attr.kind = Attribute::Kind::kArray;
  attr.ints = std::move(values);
  attr.loc = loc;
  return attr;
}

// One bracketed list of dimension numbers: spatial dims by number, the two others by letter.
struct DimList {
  std::vector<int64_t> spatial;  // spatial dim k sits at spatial[k]
  int64_t first = -1, second = -1;
};

}  // namespace

// `[b, 0, 1, f]`: `letters` names the two non-spatial dims (b and f, or i and o).
static DimList parse_dim_list(Parser& parser, const char* letters) {
  const std::string context = std::string("in the convolution's dimension numbers");
  parser.expect("[", context);
  DimList list;
  std::vector<int64_t> positions;  // positions[k]: where spatial number k was written
  int64_t index = 0;
  do {
    const Token token = parser.next();
    if (token.kind == Tok::kInteger) {
      const int64_t k = std::strtoll(token.text.c_str(), nullptr, 10);
      if (k < 0 || k >= 1024) fail_at(token.loc, "unexpected spatial dimension " + token.text);
      if (static_cast<size_t>(k) >= positions.size()) positions.resize(k + 1, -1);
      if (positions[k] >= 0)
        fail_at(token.loc, "spatial dimension " + token.text + " appears twice");
      positions[k] = index;
    } else if (token.kind == Tok::kBareId && token.text.size() == 1 &&
               (token.text[0] == letters[0] || token.text[0] == letters[1])) {
      int64_t& slot = token.text[0] == letters[0] ? list.first : list.second;
      if (slot >= 0) fail_at(token.loc, "dimension " + quote_text(token.text) + " appears twice");
      slot = index;
    } else {
      fail_at(token.loc, "expected a spatial dimension number, '" + std::string(1, letters[0]) +
                             "' or '" + std::string(1, letters[1]) + "' but found " +
                             describe(token));
    }
    ++index;
  } while (parser.accept(","));
  const Location end = parser.expect("]", context).loc;
  if (list.first < 0 || list.second < 0) {
    fail_at(end, "the dimension numbers need both '" + std::string(1, letters[0]) + "' and '" +
                     std::string(1, letters[1]) + "'");
  }
  for (size_t k = 0; k < positions.size(); ++k) {
    if (positions[k] < 0) fail_at(end, "spatial dimension " + std::to_string(k) + " is missing");
    list.spatial.push_back(positions[k]);
  }
  return list;
}

static void parse_conv_dimensions(Parser& parser, Attribute& attr) {
  attr.kind = Attribute::Kind::kStruct;
  const DimList input = parse_dim_list(parser, "bf");
  if (!parser.accept_word("x")) parser.error_at_peek("'x'", "after the input dimension numbers");
  const DimList kernel = parse_dim_list(parser, "io");
  parser.expect("->", "after the kernel dimension numbers");
  const DimList output = parse_dim_list(parser, "bf");
  const Location& loc = attr.loc;
  set_attr(attr.fields, "input_batch_dimension", int_attr(input.first, loc));
  set_attr(attr.fields, "input_feature_dimension", int_attr(input.second, loc));
  set_attr(attr.fields, "input_spatial_dimensions", ints_attr(input.spatial, loc));
  set_attr(attr.fields, "kernel_input_feature_dimension", int_attr(kernel.first, loc));
  set_attr(attr.fields, "kernel_output_feature_dimension", int_attr(kernel.second, loc));
  set_attr(attr.fields, "kernel_spatial_dimensions", ints_attr(kernel.spatial, loc));
  set_attr(attr.fields, "output_batch_dimension", int_attr(output.first, loc));
  set_attr(attr.fields, "output_feature_dimension", int_attr(output.second, loc));
  set_attr(attr.fields, "output_spatial_dimensions", ints_attr(output.spatial, loc));
}

void Parser::parse_conv_attribute(Attribute& attr) {
  expect("<", "after '#stablehlo.conv'");
  attr.kind = Attribute::Kind::kStruct;
  if (accept_word("raw")) {
    if (!at_punct(">")) {
      do {
        const Token key =
            expect_kind(Tok::kBareId, "a field name", "in '#stablehlo.conv<raw ...>'");
        expect("=", "after the field name");
        set_attr(attr.fields, key.text, parse_attribute(false));
      } while (accept(","));
    }
  } else {
    parse_conv_dimensions(*this, attr);
  }
  expect(">", "to close '#stablehlo.conv<...>'");
}

// `[1, 2]`, `[true, false]` or `[[1, 1], [0, 2]]` (pairs, flattened): the integers in order.
static std::vector<int64_t> parse_window_item(Parser& parser);
static std::vector<int64_t> parse_window_list_items(Parser& parser);

static std::vector<int64_t> parse_window_list(Parser& parser, bool pairs) {
  std::vector<int64_t> values;
  parser.expect("[", "to open a window entry");
  if (parser.accept("]")) return values;
  do {
    if (pairs) {
      const Location at = parser.expect("[", "to open a (low, high) padding pair").loc;
      const size_t before = values.size();
      const std::vector<int64_t> pair = parse_window_list_items(parser);
      values.insert(values.end(), pair.begin(), pair.end());
      if (values.size() - before != 2) fail_at(at, "expected a padding pair [low, high]");
    } else {
      const std::vector<int64_t> one = parse_window_item(parser);
      values.insert(values.end(), one.begin(), one.end());
    }
  } while (parser.accept(","));
  parser.expect("]", "to close a window entry");
  return values;
}

// Items up to and including the closing bracket of a list already opened.
static std::vector<int64_t> parse_window_list_items(Parser& parser) {
  std::vector<int64_t> values;
  if (parser.accept("]")) return values;
  do {
    const std::vector<int64_t> one = parse_window_item(parser);
    values.insert(values.end(), one.begin(), one.end());
  } while (parser.accept(","));
  parser.expect("]", "to close a padding pair");
  return values;
}

static std::vector<int64_t> parse_window_item(Parser& parser) {
  const Token token = parser.next();
  if (token.kind == Tok::kInteger) return {std::strtoll(token.text.c_str(), nullptr, 10)};
  if (token.kind == Tok::kBareId && (token.text == "true" || token.text == "false")) {
    return {token.text == "true" ? 1 : 0};
  }
  fail_at(token.loc,
          "expected an integer in the convolution's window but found " + describe(token));
}

static void parse_conv_window(Parser& parser, Op& op) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"stride", "window_strides"},   {"pad", "padding"},
      {"lhs_dilate", "lhs_dilation"}, {"rhs_dilate", "rhs_dilation"},
      {"reverse", "window_reversal"},
  };
  std::set<std::string> seen;
  while (parser.peek().kind == Tok::kBareId) {
    const Token name = parser.next();
    const char* canonical = nullptr;
    for (const auto& [pretty, generic] : kNames) {
      if (name.text == pretty) canonical = generic;
    }
    if (canonical == nullptr || !seen.insert(name.text).second) {
      fail_at(name.loc, "unexpected " + quote_text(name.text) + " in the convolution's window");
    }
    parser.expect("=", "after " + quote_text(name.text));
    set_attr(op.attrs, canonical,
             ints_attr(parse_window_list(parser, name.text == "pad"), name.loc));
    if (!parser.accept(",")) break;
  }
}

void Parser::parse_convolution(Op& op) {
  expect("(", "after 'stablehlo.convolution'");
  op.operands = parse_operand_list();
  expect(")", "to close the operands of 'stablehlo.convolution'");
  if (!accept_word("dim_numbers")) error_at_peek("'dim_numbers'", "in 'stablehlo.convolution'");
  expect("=", "after 'dim_numbers'");
  Attribute dims;
  dims.loc = peek().loc;
  parse_conv_dimensions(*this, dims);
  set_attr(op.attrs, "dimension_numbers", dims);
  expect(",", "after the dimension numbers");
  if (!accept_word("window")) error_at_peek("'window'", "in 'stablehlo.convolution'");
  expect("=", "after 'window'");
  expect("{", "to open the convolution's window");
  parse_conv_window(*this, op);
  expect("}", "to close the convolution's window");
  finish_functional(op);
}

}  // namespace ndbuf::program
