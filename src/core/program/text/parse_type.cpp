// Types: tensor<2x3xf32>, tuple<...>, !stablehlo.token; the type lists after an op's ':'.

#include <algorithm>

#include "program/text/parser.hpp"

namespace ndbuf::program {
namespace {

const char* kSupportedElementTypes =
    "i1, i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32, f64, complex<f32>, "
    "complex<f64>, f8E4M3FN, f8E5M2; in constants and convert also f8E4M3, f8E4M3FNUZ, "
    "f8E4M3B11FNUZ, f8E5M2FNUZ, f8E3M4, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN";

std::optional<DType> simple_element_type(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"i1", DType::kPred},  {"i8", DType::kI8},   {"i16", DType::kI16},   {"i32", DType::kI32},
      {"i64", DType::kI64},  {"ui8", DType::kU8},  {"ui16", DType::kU16},  {"ui32", DType::kU32},
      {"ui64", DType::kU64}, {"f16", DType::kF16}, {"bf16", DType::kBF16}, {"f32", DType::kF32},
      {"f64", DType::kF64},
  };
  for (const auto& [text, dtype] : kNames) {
    if (name == text) return dtype;
  }
  for (size_t k = 0; k < kNumMinifloatKinds; ++k) {  // f8E4M3FN .. f4E2M1FN, in enum order
    if (name == kMinifloatFormats[k].name) {
      return static_cast<DType>(static_cast<size_t>(DType::kF8E4M3FN) + k);
    }
  }
  return std::nullopt;
}

}  // namespace

DType Parser::parse_element_type() {
  const Token token = next();
  if (token.kind == Tok::kBareId) {
    if (auto dtype = simple_element_type(token.text)) return *dtype;
    if (in_attribute_type_ && token.text == "index") return DType::kI64;
    if (token.text == "complex") {
      expect("<", "in a complex element type");
      const Token part = next();
      expect(">", "after the complex part type");
      if (part.text == "f32") return DType::kC64;
      if (part.text == "f64") return DType::kC128;
      fail_at(part.loc,
              "element type " + quote_text("complex<" + part.text + ">") +
                  " is not supported by this runtime (supported: " + kSupportedElementTypes + ")");
    }
  }
  if (token.kind == Tok::kBangId || token.kind == Tok::kBareId) {
    std::string name = (token.kind == Tok::kBangId ? "!" : "") + token.text;
    fail_at(token.loc,
            "element type " + quote_text(name) +
                " is not supported by this runtime (supported: " + kSupportedElementTypes + ")");
  }
  fail_at(token.loc, "expected an element type but found " + describe(token));
}

Type Parser::parse_type() {
  const Token token = next();
  DepthGuard guard(*this, token.loc);
  if (token.kind == Tok::kBangId) {
    if (token.text == "stablehlo.token") return Type{Type::Kind::kToken, DType::kPred, {}, {}};
    fail_at(token.loc,
            "type " + quote_text("!" + token.text) + " is not supported by this runtime");
  }
  if (token.kind == Tok::kBareId && token.text == "tuple") {
    expect("<", "in a tuple type");
    Type tuple{Type::Kind::kTuple, DType::kPred, {}, {}};
    if (!accept(">")) {
      tuple.elements = parse_type_list();
      expect(">", "to close the tuple type");
    }
    return tuple;
  }
  if (token.kind != Tok::kBareId || token.text != "tensor") {
    fail_at(token.loc, "expected a type but found " + describe(token));
  }
  expect("<", "after 'tensor'");
  Shape shape = lex_.scan_dimensions();
  if (at_punct("?") || at_punct("*")) {
    fail_at(peek().loc, "dynamic shapes ('" + peek().text + "') are not supported by this runtime");
  }
  const DType dtype = parse_element_type();
  if (at_punct(",")) fail_at(peek().loc, "tensor encodings are not supported by this runtime");
  expect(">", "to close the tensor type");
  Type type = Type::tensor(dtype, std::move(shape));
  // Every size the runtime derives from a type (element counts, byte counts, offsets) then
  // fits int64.
  int64_t count = 1;
  bool fits = true;
  for (int64_t dim : type.shape) fits = fits && checked_mul(count, dim, &count);
  fits = fits && checked_mul(count, static_cast<int64_t>(itemsize(dtype)), &count);
  const bool empty = std::find(type.shape.begin(), type.shape.end(), 0) != type.shape.end();
  if (!fits && !empty) {
    fail_at(token.loc,
            "type " + type_to_string(type) + " has more bytes than a 64-bit count can hold");
  }
  return type;
}

std::vector<Type> Parser::parse_type_list(bool with_attributes) {
  std::vector<Type> types;
  do {
    types.push_back(parse_type());
    if (with_attributes && at_punct("{")) parse_attr_dict();  // function result attributes
    skip_location();
  } while (accept(","));
  return types;
}

TypeSignature Parser::parse_signature() {
  TypeSignature sig;
  sig.loc = peek().loc;
  if (accept("(")) {
    if (!accept(")")) {
      sig.inputs = parse_type_list();
      expect(")", "to close the operand types");
    }
    sig.functional = true;
    expect("->", "after the operand types");
  } else {
    sig.inputs = parse_type_list();
    if (!accept("->")) return sig;
    sig.functional = true;
  }
  if (accept("(")) {
    if (!accept(")")) {
      sig.outputs = parse_type_list();
      expect(")", "to close the result types");
    }
  } else {
    sig.outputs.push_back(parse_type());
  }
  return sig;
}

}  // namespace ndbuf::program
