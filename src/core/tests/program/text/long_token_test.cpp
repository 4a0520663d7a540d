// Program text quoted in compile errors is cut: at most 48 characters whole, else the first 40,
// "..." and the length, so a message stays short whatever the token (100 KB, 1 MB).
#include <gtest/gtest.h>

#include <string>

#include "program/ir/location.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;

// The expected quote of `text`, written out from the rule above (ASCII text).
std::string cut(const std::string& text) {
  return "'" + text.substr(0, 40) + "...' (" + std::to_string(text.size()) + " characters)";
}

TEST(QuoteText, ShortTextIsQuotedWholeLongTextIsCutWithItsLength) {
  EXPECT_EQ(quote_text(""), "''");
  EXPECT_EQ(quote_text("abc"), "'abc'");
  const std::string at_limit(48, 'a');
  EXPECT_EQ(quote_text(at_limit), "'" + at_limit + "'");
  const std::string over(49, 'b');
  EXPECT_EQ(quote_text(over), "'" + std::string(40, 'b') + "...' (49 characters)");
  EXPECT_EQ(quote_text(std::string(1000000, 'c')),
            "'" + std::string(40, 'c') + "...' (1000000 characters)");
  EXPECT_EQ(quote_text(over, "\"", "\""), "\"" + std::string(40, 'b') + "...\" (49 characters)");
  EXPECT_EQ(quote_text("@f", "", ""), "@f");
}

TEST(QuoteText, CountsAndCutsUtf8CharactersWhole) {
  std::string e_acute;  // U+00E9, two bytes
  for (int k = 0; k < 50; ++k) e_acute += "\xC3\xA9";
  std::string head;
  for (int k = 0; k < 40; ++k) head += "\xC3\xA9";
  EXPECT_EQ(quote_text(e_acute), "'" + head + "...' (50 characters)");
  std::string euro;  // U+20AC, three bytes; 48 of them are quoted whole
  for (int k = 0; k < 48; ++k) euro += "\xE2\x82\xAC";
  EXPECT_EQ(quote_text(euro), "'" + euro + "'");
}

TEST(QuoteText, CompileErrorsStayShortFor100KbAnd1MbTokens) {
  for (size_t n : {size_t{100000}, size_t{1000000}}) {
    const std::string word(n, 'w');
    const std::string top = compile_error(word);
    EXPECT_EQ(top, "1:1: expected 'func.func' at the top level but found " + cut(word));
    EXPECT_LT(top.size(), 130u);
    const std::string value = "%" + std::string(n, 'v');
    EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n  return " + value +
                            " : tensor<f32>\n}"),
              "2:10: use of undefined value " + cut(value));
    const std::string digits(n, '9');
    EXPECT_EQ(compile_error("func.func @main() -> tensor<i32> {\n  %0 = stablehlo.constant dense<" +
                            digits + "> : tensor<i32>\n  return %0 : tensor<i32>\n}"),
              "2:33: integer " + cut(digits) + " is out of range");
    EXPECT_EQ(
        compile_error("func.func @main() -> () {\n  \"" + std::string(n, 's') + "\" : () -> ()\n}"),
        "2:3: op " + cut(std::string(n, 's')) + " is not supported by this runtime");
    EXPECT_EQ(compile_error("func.func @main(%a: \"" + std::string(n, 's') + "\") -> () {\n}"),
              "1:21: expected a type but found string \"" + std::string(40, 's') + "...\" (" +
                  std::to_string(n) + " characters)");
  }
}

TEST(QuoteText, NamesOfOpsFunctionsAndTypesAreCut) {
  const std::string op = "stablehlo." + std::string(100000, 'x');
  EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n  %0 = \"" + op +
                          "\"() : () -> tensor<f32>\n  return %0 : tensor<f32>\n}"),
            "2:8: op " + cut(op) + " is not supported by this runtime");
  EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n  %0 = " + op +
                          " : tensor<f32>\n  return %0 : tensor<f32>\n}"),
            "2:8: op " + cut(op) + " is not supported by this runtime");
  const std::string callee = "@" + std::string(100000, 'f');
  EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n  %0 = func.call " + callee +
                          "() : () -> tensor<f32>\n  return %0 : tensor<f32>\n}"),
            "2:8: 'func.call' calls " + cut(callee) + ", which is not defined");
  const std::string type = std::string(100000, 't');
  EXPECT_EQ(compile_error("func.func @main(%a: tensor<" + type + ">) -> () {\n  return\n}"),
            "1:28: element type " + cut(type) +
                " is not supported by this runtime (supported: i1, i8, i16, i32, i64, ui8, "
                "ui16, ui32, ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>, f8E4M3FN, "
                "f8E5M2; in constants and convert also f8E4M3, f8E4M3FNUZ, f8E4M3B11FNUZ, "
                "f8E5M2FNUZ, f8E3M4, f8E8M0FNU, f6E2M3FN, f6E3M2FN, f4E2M1FN)");
  const std::string dims(100000, '7');
  EXPECT_EQ(compile_error("func.func @main(%a: tensor<" + dims + "xf32>) -> () {\n  return\n}"),
            "1:28: dimension " + cut(dims) + " is too large");
}

TEST(QuoteText, ShortCalleesKeepTheirMessage) {
  EXPECT_EQ(compile_error("func.func @main() -> tensor<f32> {\n  %0 = func.call @g() : () -> "
                          "tensor<f32>\n  return %0 : tensor<f32>\n}"),
            "2:8: 'func.call' calls '@g', which is not defined");
}

}  // namespace
}  // namespace ndbuf::program
