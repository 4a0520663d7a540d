// Every op of the runtime written in MLIR's generic op syntax
// (`%r = "stablehlo.op"(%a) ({regions}) {attrs} : (types) -> types`), and for a subset also in
// the pretty form, each checked against values worked out by hand (or with <cmath> for the
// transcendental ones).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <ostream>
#include <string>
#include <vector>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::run;
using testing::values;

struct GenericCase {
  std::string name;
  std::string result_type;  // the type of @main's single result %r
  std::string generic;      // @main's body in generic form, defining %r
  std::string pretty;       // the same body in pretty form ("" when not checked)
  std::vector<double> expected;
  double tolerance = 0;  // relative to max(1, |expected|); 0: exact
};

// Names the case in failure messages instead of dumping its bytes.
void PrintTo(const GenericCase& c, std::ostream* os) { *os << c.name; }

// `%name = "stablehlo.constant"() {value = dense<literal> : type} : () -> type`.
std::string cst(const std::string& name, const std::string& literal, const std::string& type) {
  return "  %" + name + " = \"stablehlo.constant\"() {value = dense<" + literal + "> : " + type +
         "} : () -> " + type + "\n";
}

// The same constant in pretty form.
std::string pcst(const std::string& name, const std::string& literal, const std::string& type) {
  return "  %" + name + " = stablehlo.constant dense<" + literal + "> : " + type + "\n";
}

std::string main_of(const std::string& body, const std::string& result_type) {
  return "func.func @main() -> " + result_type + " {\n" + body + "  return %r : " + result_type +
         "\n}\n";
}

// The elements of `t` as doubles (bool, integer and real element types).
std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> out;
  auto add = [&out](const auto& v) {
    for (auto x : v) out.push_back(static_cast<double>(x));
  };
  switch (t.dtype()) {
    case DType::kPred:
      add(values<uint8_t>(t));
      break;
    case DType::kI8:
      add(values<int8_t>(t));
      break;
    case DType::kI16:
      add(values<int16_t>(t));
      break;
    case DType::kI32:
      add(values<int32_t>(t));
      break;
    case DType::kI64:
      add(values<int64_t>(t));
      break;
    case DType::kU8:
      add(values<uint8_t>(t));
      break;
    case DType::kU16:
      add(values<uint16_t>(t));
      break;
    case DType::kU32:
      add(values<uint32_t>(t));
      break;
    case DType::kU64:
      add(values<uint64_t>(t));
      break;
    case DType::kF16:
    case DType::kBF16:
      out = testing::half_values(t);
      break;
    case DType::kF32:
      add(values<float>(t));
      break;
    case DType::kF64:
      add(values<double>(t));
      break;
    default:
      ADD_FAILURE() << "unexpected result dtype";
      break;
  }
  return out;
}

void expect_values(const std::vector<Tensor>& out, const GenericCase& c, const char* form) {
  ASSERT_EQ(out.size(), 1u) << form;
  const std::vector<double> got = as_doubles(out[0]);
  ASSERT_EQ(got.size(), c.expected.size()) << form;
  for (size_t i = 0; i < got.size(); ++i) {
    if (c.tolerance == 0) {
      EXPECT_EQ(got[i], c.expected[i]) << form << " element " << i;
    } else {
      EXPECT_NEAR(got[i], c.expected[i], c.tolerance * std::max(1.0, std::fabs(c.expected[i])))
          << form << " element " << i;
    }
  }
}

// ---- builders for the common shapes of cases ----------------------------------------------

const std::string kF4 = "tensor<4xf32>";
const std::string kI4 = "tensor<4xi32>";
const std::string kB4 = "tensor<4xi1>";

// "%r = op(%x)" on one constant operand; `op` is the full name ("stablehlo.abs", "chlo.erf").
GenericCase unary(const std::string& op, const std::string& type, const std::string& literal,
                  std::vector<double> expected, double tolerance = 0,
                  const std::string& result_type = "") {
  const std::string rt = result_type.empty() ? type : result_type;
  GenericCase c;
  c.name = op.substr(op.find('.') + 1);
  c.result_type = rt;
  c.generic =
      cst("x", literal, type) + "  %r = \"" + op + "\"(%x) : (" + type + ") -> " + rt + "\n";
  c.expected = std::move(expected);
  c.tolerance = tolerance;
  return c;
}

GenericCase binary(const std::string& op, const std::string& type, const std::string& a,
                   const std::string& b, std::vector<double> expected, double tolerance = 0) {
  GenericCase c;
  c.name = op.substr(op.find('.') + 1);
  c.result_type = type;
  c.generic = cst("a", a, type) + cst("b", b, type) + "  %r = \"" + op + "\"(%a, %b) : (" + type +
              ", " + type + ") -> " + type + "\n";
  c.expected = std::move(expected);
  c.tolerance = tolerance;
  return c;
}

template <class F>
std::vector<double> map_of(const std::vector<double>& xs, F f) {
  std::vector<double> out;
  for (double x : xs) out.push_back(f(x));
  return out;
}

// erf^-1 by Newton's method on std::erf.
double erf_inv(double y) {
  double x = 0;
  for (int k = 0; k < 60; ++k)
    x -= (std::erf(x) - y) / (2 / std::sqrt(std::acos(-1.0)) * std::exp(-x * x));
  return x;
}

constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kTr = 1e-5;  // transcendental ops in f32

// [1, inf, -inf, nan] as 1/1, 1/0, -1/0, 0/0.
std::string special_values() {
  return cst("n", "[1.0, 1.0, -1.0, 0.0]", kF4) + cst("d", "[1.0, 0.0, 0.0, 0.0]", kF4) +
         "  %x = \"stablehlo.divide\"(%n, %d) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n";
}

GenericCase on_special(const std::string& op, std::vector<double> expected) {
  GenericCase c;
  c.name = op.substr(op.find('.') + 1);
  c.result_type = kB4;
  c.generic = special_values() + "  %r = \"" + op + "\"(%x) : (tensor<4xf32>) -> tensor<4xi1>\n";
  c.expected = std::move(expected);
  return c;
}

GenericCase compare(const std::string& direction, const std::string& compare_type,
                    const std::string& type, const std::string& a, const std::string& b,
                    const std::string& result_type, std::vector<double> expected) {
  GenericCase c;
  c.name = "compare_" + direction + "_" + compare_type;
  c.result_type = result_type;
  c.generic = cst("a", a, type) + cst("b", b, type) +
              "  %r = \"stablehlo.compare\"(%a, %b) {comparison_direction = "
              "#stablehlo<comparison_direction " +
              direction + ">, compare_type = #stablehlo<comparison_type " + compare_type +
              ">} : (" + type + ", " + type + ") -> " + result_type + "\n";
  c.pretty = pcst("a", a, type) + pcst("b", b, type) + "  %r = stablehlo.compare  " + direction +
             ", %a, %b,  " + compare_type + " : (" + type + ", " + type + ") -> " + result_type +
             "\n";
  c.expected = std::move(expected);
  return c;
}

std::vector<GenericCase> elementwise_cases() {
  const std::string a = "[1.0, -2.0, 6.0, 7.0]";
  const std::string b = "[2.0, 4.0, 3.0, -2.0]";
  std::vector<GenericCase> cs = {
      binary("stablehlo.add", kF4, a, b, {3, 2, 9, 5}),
      binary("stablehlo.subtract", kF4, a, b, {-1, -6, 3, 9}),
      binary("stablehlo.multiply", kF4, a, b, {2, -8, 18, -14}),
      binary("stablehlo.divide", kF4, a, b, {0.5, -0.5, 2, -3.5}),
      binary("stablehlo.remainder", kF4, a, b, {1, -2, 0, 1}),
      binary("stablehlo.power", kF4, a, b, {1, 16, 216, 1.0 / 49}, kTr),
      binary("stablehlo.maximum", kF4, a, b, {2, 4, 6, 7}),
      binary("stablehlo.minimum", kF4, a, b, {1, -2, 3, -2}),
      binary("stablehlo.atan2", kF4, a, b,
             {std::atan2(1.0, 2.0), std::atan2(-2.0, 4.0), std::atan2(6.0, 3.0),
              std::atan2(7.0, -2.0)},
             kTr),
      binary("stablehlo.and", kI4, "[12, 10, -1, 0]", "[10, 6, 5, 7]", {8, 2, 5, 0}),
      binary("stablehlo.or", kI4, "[12, 10, -1, 0]", "[10, 6, 5, 7]", {14, 14, -1, 7}),
      binary("stablehlo.xor", kI4, "[12, 10, -1, 0]", "[10, 6, 5, 7]", {6, 12, -6, 7}),
      binary("stablehlo.shift_left", kI4, "[1, 3, -1, 5]", "[2, 1, 4, 0]", {4, 6, -16, 5}),
      binary("stablehlo.shift_right_arithmetic", kI4, "[16, -16, 7, -1]", "[2, 2, 1, 3]",
             {4, -4, 3, -1}),
      binary("stablehlo.shift_right_logical", kI4, "[16, -16, 7, -1]", "[2, 28, 1, 31]",
             {4, 15, 3, 1}),
      unary("stablehlo.negate", kF4, "[1.0, -2.0, 0.5, -4.0]", {-1, 2, -0.5, 4}),
      unary("stablehlo.abs", kF4, "[1.0, -2.0, 0.5, -4.0]", {1, 2, 0.5, 4}),
      unary("stablehlo.sign", kF4, "[3.0, -2.0, 0.0, -0.5]", {1, -1, 0, -1}),
      unary("stablehlo.sqrt", kF4, "[0.0, 4.0, 2.25, 9.0]", {0, 2, 1.5, 3}),
      unary("stablehlo.rsqrt", kF4, "[1.0, 4.0, 0.25, 16.0]", {1, 0.5, 2, 0.25}),
      unary("stablehlo.cbrt", kF4, "[8.0, -27.0, 1.0, 0.125]", {2, -3, 1, 0.5}, kTr),
      unary("stablehlo.floor", kF4, "[1.5, -1.5, 2.0, -0.25]", {1, -2, 2, -1}),
      unary("stablehlo.ceil", kF4, "[1.5, -1.5, 2.0, -0.25]", {2, -1, 2, 0}),
      unary("stablehlo.round_nearest_even", kF4, "[0.5, 1.5, 2.5, -2.5]", {0, 2, 2, -2}),
      unary("stablehlo.round_nearest_afz", kF4, "[0.5, 1.5, 2.5, -2.5]", {1, 2, 3, -3}),
      unary("stablehlo.not", kI4, "[0, 1, -1, 5]", {-1, -2, 0, -6}),
      unary("stablehlo.popcnt", kI4, "[0, 1, 7, -1]", {0, 1, 3, 32}),
      unary("stablehlo.count_leading_zeros", kI4, "[0, 1, 255, -1]", {32, 31, 24, 0}),
      on_special("stablehlo.is_finite", {1, 0, 0, 0}),
      on_special("chlo.is_inf", {0, 1, 1, 0}),
      on_special("chlo.is_pos_inf", {0, 1, 0, 0}),
      on_special("chlo.is_neg_inf", {0, 0, 1, 0}),
  };
  const std::vector<double> t = {0, 0.5, -1, 2};
  const std::string tl = "[0.0, 0.5, -1.0, 2.0]";
  cs.push_back(unary("stablehlo.exponential", kF4, tl,
                     map_of(t, [](double x) { return std::exp(x); }), kTr));
  cs.push_back(unary("stablehlo.exponential_minus_one", kF4, tl,
                     map_of(t, [](double x) { return std::expm1(x); }), kTr));
  cs.push_back(unary("stablehlo.logistic", kF4, tl,
                     map_of(t, [](double x) { return 1 / (1 + std::exp(-x)); }), kTr));
  cs.push_back(
      unary("stablehlo.tanh", kF4, tl, map_of(t, [](double x) { return std::tanh(x); }), kTr));
  cs.push_back(
      unary("stablehlo.tan", kF4, tl, map_of(t, [](double x) { return std::tan(x); }), kTr));
  cs.push_back(
      unary("stablehlo.sine", kF4, tl, map_of(t, [](double x) { return std::sin(x); }), kTr));
  cs.push_back(
      unary("stablehlo.cosine", kF4, tl, map_of(t, [](double x) { return std::cos(x); }), kTr));
  cs.push_back(unary("chlo.erf", kF4, tl, map_of(t, [](double x) { return std::erf(x); }), kTr));
  cs.push_back(unary("chlo.erfc", kF4, tl, map_of(t, [](double x) { return std::erfc(x); }), kTr));
  cs.push_back(unary("chlo.square", kF4, tl, {0, 0.25, 1, 4}));
  cs.push_back(unary("chlo.sinh", kF4, tl, map_of(t, [](double x) { return std::sinh(x); }), kTr));
  cs.push_back(unary("chlo.cosh", kF4, tl, map_of(t, [](double x) { return std::cosh(x); }), kTr));
  cs.push_back(unary("chlo.atan", kF4, tl, map_of(t, [](double x) { return std::atan(x); }), kTr));
  cs.push_back(
      unary("chlo.asinh", kF4, tl, map_of(t, [](double x) { return std::asinh(x); }), kTr));
  const std::vector<double> p = {1, 2, 0.5, 10};
  const std::string pl = "[1.0, 2.0, 0.5, 10.0]";
  cs.push_back(
      unary("stablehlo.log", kF4, pl, map_of(p, [](double x) { return std::log(x); }), kTr));
  cs.push_back(unary("stablehlo.log_plus_one", kF4, pl,
                     map_of(p, [](double x) { return std::log1p(x); }), kTr));
  cs.push_back(
      unary("chlo.lgamma", kF4, pl, map_of(p, [](double x) { return std::lgamma(x); }), 1e-4));
  cs.push_back(unary("chlo.acosh", kF4, "[1.0, 2.0, 1.5, 10.0]",
                     {std::acosh(1.0), std::acosh(2.0), std::acosh(1.5), std::acosh(10.0)}, kTr));
  // digamma(1) = -gamma, digamma(2) = 1 - gamma, digamma(1/2) = -gamma - 2 ln 2,
  // digamma(3) = 3/2 - gamma.
  cs.push_back(unary(
      "chlo.digamma", kF4, "[1.0, 2.0, 0.5, 3.0]",
      {-kEulerGamma, 1 - kEulerGamma, -kEulerGamma - 2 * std::log(2.0), 1.5 - kEulerGamma}, 1e-4));
  const std::vector<double> u = {0, 0.5, -0.25, 0.75};
  const std::string ul = "[0.0, 0.5, -0.25, 0.75]";
  cs.push_back(unary("chlo.asin", kF4, ul, map_of(u, [](double x) { return std::asin(x); }), kTr));
  cs.push_back(unary("chlo.acos", kF4, ul, map_of(u, [](double x) { return std::acos(x); }), kTr));
  cs.push_back(
      unary("chlo.atanh", kF4, ul, map_of(u, [](double x) { return std::atanh(x); }), kTr));
  cs.push_back(unary("chlo.erf_inv", kF4, ul, map_of(u, erf_inv), 1e-4));
  // Pretty forms of a few element-wise ops.
  for (auto& c : cs) {
    if (c.name == "add") {
      c.pretty =
          pcst("a", a, kF4) + pcst("b", b, kF4) + "  %r = stablehlo.add %a, %b : " + kF4 + "\n";
    } else if (c.name == "negate") {
      c.pretty =
          pcst("x", "[1.0, -2.0, 0.5, -4.0]", kF4) + "  %r = stablehlo.negate %x : " + kF4 + "\n";
    } else if (c.name == "exponential") {
      c.pretty =
          pcst("x", tl, kF4) + "  %r = stablehlo.exponential %x : (" + kF4 + ") -> " + kF4 + "\n";
    } else if (c.name == "shift_left") {
      c.pretty = pcst("a", "[1, 3, -1, 5]", kI4) + pcst("b", "[2, 1, 4, 0]", kI4) +
                 "  %r = stablehlo.shift_left %a, %b : " + kI4 + "\n";
    }
  }
  // compare: every direction with FLOAT, and SIGNED, UNSIGNED and TOTALORDER.
  const std::string ca = "[1.0, 2.0, 3.0, 4.0]";
  const std::string cb = "[2.0, 2.0, 2.0, 5.0]";
  cs.push_back(compare("EQ", "FLOAT", kF4, ca, cb, kB4, {0, 1, 0, 0}));
  cs.push_back(compare("NE", "FLOAT", kF4, ca, cb, kB4, {1, 0, 1, 1}));
  cs.push_back(compare("LT", "FLOAT", kF4, ca, cb, kB4, {1, 0, 0, 1}));
  cs.push_back(compare("LE", "FLOAT", kF4, ca, cb, kB4, {1, 1, 0, 1}));
  cs.push_back(compare("GT", "FLOAT", kF4, ca, cb, kB4, {0, 0, 1, 0}));
  cs.push_back(compare("GE", "FLOAT", kF4, ca, cb, kB4, {0, 1, 1, 0}));
  cs.push_back(
      compare("LT", "SIGNED", "tensor<2xi32>", "[-1, 2]", "[1, 2]", "tensor<2xi1>", {1, 0}));
  cs.push_back(compare("LT", "UNSIGNED", "tensor<2xui32>", "[1, 4294967295]", "[2, 1]",
                       "tensor<2xi1>", {1, 0}));
  cs.push_back(compare("LT", "TOTALORDER", "tensor<2xf32>", "[-0.0, 1.0]", "[0.0, 1.0]",
                       "tensor<2xi1>", {1, 0}));
  return cs;
}

// ---- the remaining ops, one program each ---------------------------------------------------

GenericCase make(const std::string& name, const std::string& result_type,
                 const std::string& generic, std::vector<double> expected,
                 const std::string& pretty = "", double tolerance = 0) {
  GenericCase c;
  c.name = name;
  c.result_type = result_type;
  c.generic = generic;
  c.pretty = pretty;
  c.expected = std::move(expected);
  c.tolerance = tolerance;
  return c;
}

// A region of two scalar arguments returning "op"(p, q) (generic form throughout).
std::string binary_region(const std::string& op, const std::string& scalar,
                          const std::string& result = "") {
  const std::string rt = result.empty() ? scalar : result;
  return "{\n  ^bb0(%p: " + scalar + ", %q: " + scalar + "):\n    %s = \"" + op + "\"(%p, %q) : (" +
         scalar + ", " + scalar + ") -> " + rt + "\n    \"stablehlo.return\"(%s) : (" + rt +
         ") -> ()\n  }";
}

std::string compare_region(const std::string& direction, const std::string& scalar) {
  return "{\n  ^bb0(%p: " + scalar + ", %q: " + scalar +
         "):\n    %s = \"stablehlo.compare\"(%p, %q) {comparison_direction = "
         "#stablehlo<comparison_direction " +
         direction + ">} : (" + scalar + ", " + scalar +
         ") -> tensor<i1>\n    \"stablehlo.return\"(%s) : (tensor<i1>) -> ()\n  }";
}

std::vector<GenericCase> other_cases() {
  const std::string m23 = "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]";
  const std::string m32 = "[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]";
  const std::string i33 = "[[0, 1, 2], [3, 4, 5], [6, 7, 8]]";
  std::vector<GenericCase> cs;

  cs.push_back(make("constant", "tensor<2x2xf64>",
                    cst("r", "[[1.5, 2.0], [3.0, -4.0]]", "tensor<2x2xf64>"), {1.5, 2, 3, -4},
                    pcst("r", "[[1.5, 2.0], [3.0, -4.0]]", "tensor<2x2xf64>")));
  cs.push_back(
      make("iota", "tensor<2x3xi32>",
           "  %r = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>\n",
           {0, 1, 2, 0, 1, 2}, "  %r = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"));
  cs.push_back(make("select", "tensor<3xf32>",
                    cst("c", "[true, false, true]", "tensor<3xi1>") +
                        cst("t", "[1.0, 2.0, 3.0]", "tensor<3xf32>") +
                        cst("f", "[4.0, 5.0, 6.0]", "tensor<3xf32>") +
                        "  %r = \"stablehlo.select\"(%c, %t, %f) : (tensor<3xi1>, tensor<3xf32>, "
                        "tensor<3xf32>) -> tensor<3xf32>\n",
                    {1, 5, 3}));
  cs.push_back(make("clamp", "tensor<3xf32>",
                    cst("lo", "[0.0, 0.0, 0.0]", "tensor<3xf32>") +
                        cst("x", "[-1.0, 0.5, 3.0]", "tensor<3xf32>") +
                        cst("hi", "[2.0, 2.0, 2.0]", "tensor<3xf32>") +
                        "  %r = \"stablehlo.clamp\"(%lo, %x, %hi) : (tensor<3xf32>, tensor<3xf32>, "
                        "tensor<3xf32>) -> tensor<3xf32>\n",
                    {0, 0.5, 2}));
  cs.push_back(make("convert", "tensor<3xi32>",
                    cst("x", "[1.5, -2.75, 3.0]", "tensor<3xf32>") +
                        "  %r = \"stablehlo.convert\"(%x) : (tensor<3xf32>) -> tensor<3xi32>\n",
                    {1, -2, 3},
                    pcst("x", "[1.5, -2.75, 3.0]", "tensor<3xf32>") +
                        "  %r = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xi32>\n"));
  // 1.0f = 0x3F800000, -2.0f = 0xC0000000.
  cs.push_back(
      make("bitcast_convert", "tensor<2xi32>",
           cst("x", "[1.0, -2.0]", "tensor<2xf32>") +
               "  %r = \"stablehlo.bitcast_convert\"(%x) : (tensor<2xf32>) -> tensor<2xi32>\n",
           {1065353216, -1073741824}));
  cs.push_back(make("reshape", "tensor<3x2xf32>",
                    cst("x", m23, "tensor<2x3xf32>") +
                        "  %r = \"stablehlo.reshape\"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>\n",
                    {1, 2, 3, 4, 5, 6},
                    pcst("x", m23, "tensor<2x3xf32>") +
                        "  %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"));
  cs.push_back(make("broadcast_in_dim", "tensor<3x2xi32>",
                    cst("x", "[1, 2]", "tensor<2xi32>") +
                        "  %r = \"stablehlo.broadcast_in_dim\"(%x) {broadcast_dimensions = "
                        "array<i64: 1>} : (tensor<2xi32>) -> tensor<3x2xi32>\n",
                    {1, 2, 1, 2, 1, 2},
                    pcst("x", "[1, 2]", "tensor<2xi32>") +
                        "  %r = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<2xi32>) -> "
                        "tensor<3x2xi32>\n"));
  cs.push_back(make("transpose", "tensor<3x2xf32>",
                    cst("x", m23, "tensor<2x3xf32>") +
                        "  %r = \"stablehlo.transpose\"(%x) {permutation = array<i64: 1, 0>} : "
                        "(tensor<2x3xf32>) -> tensor<3x2xf32>\n",
                    {1, 4, 2, 5, 3, 6},
                    pcst("x", m23, "tensor<2x3xf32>") +
                        "  %r = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> "
                        "tensor<3x2xf32>\n"));
  const std::string s24 = "[[0, 1, 2, 3], [4, 5, 6, 7]]";
  cs.push_back(make("slice", "tensor<2x2xi32>",
                    cst("x", s24, "tensor<2x4xi32>") +
                        "  %r = \"stablehlo.slice\"(%x) {start_indices = array<i64: 0, 1>, "
                        "limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : "
                        "(tensor<2x4xi32>) -> tensor<2x2xi32>\n",
                    {1, 3, 5, 7},
                    pcst("x", s24, "tensor<2x4xi32>") +
                        "  %r = stablehlo.slice %x [0:2, 1:4:2] : (tensor<2x4xi32>) -> "
                        "tensor<2x2xi32>\n"));
  cs.push_back(
      make("dynamic_slice", "tensor<2x2xi32>",
           cst("x", i33, "tensor<3x3xi32>") + cst("i", "1", "tensor<i32>") +
               cst("j", "0", "tensor<i32>") +
               "  %r = \"stablehlo.dynamic_slice\"(%x, %i, %j) {slice_sizes = array<i64: 2, "
               "2>} : (tensor<3x3xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>\n",
           {3, 4, 6, 7},
           pcst("x", i33, "tensor<3x3xi32>") + pcst("i", "1", "tensor<i32>") +
               pcst("j", "0", "tensor<i32>") +
               "  %r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : "
               "(tensor<3x3xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>\n"));
  cs.push_back(make("dynamic_update_slice", "tensor<3x3xi32>",
                    cst("x", i33, "tensor<3x3xi32>") +
                        cst("u", "[[-1, -2], [-3, -4]]", "tensor<2x2xi32>") +
                        cst("i", "0", "tensor<i32>") + cst("j", "1", "tensor<i32>") +
                        "  %r = \"stablehlo.dynamic_update_slice\"(%x, %u, %i, %j) : "
                        "(tensor<3x3xi32>, tensor<2x2xi32>, tensor<i32>, tensor<i32>) -> "
                        "tensor<3x3xi32>\n",
                    {0, -1, -2, 3, -3, -4, 6, 7, 8}));
  cs.push_back(make(
      "concatenate", "tensor<5xf32>",
      cst("a", "[1.0, 2.0]", "tensor<2xf32>") + cst("b", "[3.0, 4.0, 5.0]", "tensor<3xf32>") +
          "  %r = \"stablehlo.concatenate\"(%a, %b) {dimension = 0 : i64} : "
          "(tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>\n",
      {1, 2, 3, 4, 5},
      pcst("a", "[1.0, 2.0]", "tensor<2xf32>") + pcst("b", "[3.0, 4.0, 5.0]", "tensor<3xf32>") +
          "  %r = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, "
          "tensor<3xf32>) -> tensor<5xf32>\n"));
  // [1, 2, 3] with 1 low, 2 high and 1 interior zero: 0 1 0 2 0 3 0 0.
  cs.push_back(make("pad", "tensor<8xf32>",
                    cst("x", "[1.0, 2.0, 3.0]", "tensor<3xf32>") + cst("z", "0.0", "tensor<f32>") +
                        "  %r = \"stablehlo.pad\"(%x, %z) {edge_padding_low = array<i64: 1>, "
                        "edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : "
                        "(tensor<3xf32>, tensor<f32>) -> tensor<8xf32>\n",
                    {0, 1, 0, 2, 0, 3, 0, 0}));
  // Negative low padding drops the first element of 1 0 2 0 3.
  cs.push_back(make("pad_negative", "tensor<4xf32>",
                    cst("x", "[1.0, 2.0, 3.0]", "tensor<3xf32>") + cst("z", "0.0", "tensor<f32>") +
                        "  %r = \"stablehlo.pad\"(%x, %z) {edge_padding_low = array<i64: -1>, "
                        "edge_padding_high = array<i64: 0>, interior_padding = array<i64: 1>} : "
                        "(tensor<3xf32>, tensor<f32>) -> tensor<4xf32>\n",
                    {0, 2, 0, 3}));
  cs.push_back(make("reverse", "tensor<3xi32>",
                    cst("x", "[1, 2, 3]", "tensor<3xi32>") +
                        "  %r = \"stablehlo.reverse\"(%x) {dimensions = array<i64: 0>} : "
                        "(tensor<3xi32>) -> tensor<3xi32>\n",
                    {3, 2, 1}));
  // Column sums of [[1, 2], [3, 4]].
  cs.push_back(make(
      "reduce", "tensor<2xf32>",
      cst("x", "[[1.0, 2.0], [3.0, 4.0]]", "tensor<2x2xf32>") + cst("z", "0.0", "tensor<f32>") +
          "  %r = \"stablehlo.reduce\"(%x, %z) (" + binary_region("stablehlo.add", "tensor<f32>") +
          ") {dimensions = array<i64: 0>} : (tensor<2x2xf32>, tensor<f32>) -> "
          "tensor<2xf32>\n",
      {4, 6},
      pcst("x", "[[1.0, 2.0], [3.0, 4.0]]", "tensor<2x2xf32>") + pcst("z", "0.0", "tensor<f32>") +
          "  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across "
          "dimensions = [0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>\n"));
  // Row products of [[1, 2], [3, 4]].
  cs.push_back(make("reduce_multiply", "tensor<2xf32>",
                    cst("x", "[[1.0, 2.0], [3.0, 4.0]]", "tensor<2x2xf32>") +
                        cst("one", "1.0", "tensor<f32>") +
                        "  %r = \"stablehlo.reduce\"(%x, %one) (" +
                        binary_region("stablehlo.multiply", "tensor<f32>") +
                        ") {dimensions = array<i64: 1>} : (tensor<2x2xf32>, tensor<f32>) -> "
                        "tensor<2xf32>\n",
                    {2, 12}));
  // Sliding sums of width 2: 1+2, 2+3, 3+4, 4+5.
  cs.push_back(make("reduce_window", "tensor<4xf32>",
                    cst("x", "[1.0, 2.0, 3.0, 4.0, 5.0]", "tensor<5xf32>") +
                        cst("z", "0.0", "tensor<f32>") +
                        "  %r = \"stablehlo.reduce_window\"(%x, %z) (" +
                        binary_region("stablehlo.add", "tensor<f32>") +
                        ") {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>} : "
                        "(tensor<5xf32>, tensor<f32>) -> tensor<4xf32>\n",
                    {3, 5, 7, 9}));
  // Padded by one zero in front, windows of 2 at stride 2: [0 1] [2 3] [4 5].
  cs.push_back(make("reduce_window_padded", "tensor<3xf32>",
                    cst("x", "[1.0, 2.0, 3.0, 4.0, 5.0]", "tensor<5xf32>") +
                        cst("z", "0.0", "tensor<f32>") +
                        "  %r = \"stablehlo.reduce_window\"(%x, %z) (" +
                        binary_region("stablehlo.add", "tensor<f32>") +
                        ") {padding = dense<[[1, 0]]> : tensor<1x2xi64>, window_dimensions = "
                        "array<i64: 2>, window_strides = array<i64: 2>} : (tensor<5xf32>, "
                        "tensor<f32>) -> tensor<3xf32>\n",
                    {1, 5, 9}));
  // [[1 2 3] [4 5 6]] x [[1 2] [3 4] [5 6]] = [[22 28] [49 64]].
  cs.push_back(make("dot_general", "tensor<2x2xf32>",
                    cst("a", m23, "tensor<2x3xf32>") + cst("b", m32, "tensor<3x2xf32>") +
                        "  %r = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = "
                        "#stablehlo.dot<lhs_contracting_dimensions = [1], "
                        "rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x2xf32>) "
                        "-> tensor<2x2xf32>\n",
                    {22, 28, 49, 64},
                    pcst("a", m23, "tensor<2x3xf32>") + pcst("b", m32, "tensor<3x2xf32>") +
                        "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                        "(tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>\n"));
  // Rows 2 and 0 of [[0 1] [2 3] [4 5]].
  cs.push_back(make("gather", "tensor<2x2xi32>",
                    cst("x", "[[0, 1], [2, 3], [4, 5]]", "tensor<3x2xi32>") +
                        cst("i", "[[2], [0]]", "tensor<2x1xi32>") +
                        "  %r = \"stablehlo.gather\"(%x, %i) {dimension_numbers = "
                        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
                        "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: "
                        "1, 2>} : (tensor<3x2xi32>, tensor<2x1xi32>) -> tensor<2x2xi32>\n",
                    {4, 5, 0, 1}));
  // [1 2 3 4] with 10 added at 1 and 20 at 3.
  cs.push_back(make(
      "scatter", "tensor<4xi32>",
      cst("x", "[1, 2, 3, 4]", "tensor<4xi32>") + cst("i", "[[1], [3]]", "tensor<2x1xi32>") +
          cst("u", "[10, 20]", "tensor<2xi32>") + "  %r = \"stablehlo.scatter\"(%x, %i, %u) (" +
          binary_region("stablehlo.add", "tensor<i32>") +
          ") {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = "
          "[], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
          "index_vector_dim = 1>} : (tensor<4xi32>, tensor<2x1xi32>, "
          "tensor<2xi32>) -> tensor<4xi32>\n",
      {1, 12, 3, 24}));
  cs.push_back(make("sort", "tensor<4xf32>",
                    cst("x", "[3.0, 1.0, 4.0, 2.0]", kF4) + "  %r = \"stablehlo.sort\"(%x) (" +
                        compare_region("GT", "tensor<f32>") +
                        ") {dimension = 0 : i64, is_stable = true} : (tensor<4xf32>) -> "
                        "tensor<4xf32>\n",
                    {4, 3, 2, 1}));
  // Windows [1 5] and [2 4]: 10 goes to the 5, 20 to the 4.
  cs.push_back(make("select_and_scatter", "tensor<4xf32>",
                    cst("x", "[1.0, 5.0, 2.0, 4.0]", kF4) +
                        cst("s", "[10.0, 20.0]", "tensor<2xf32>") + cst("z", "0.0", "tensor<f32>") +
                        "  %r = \"stablehlo.select_and_scatter\"(%x, %s, %z) (" +
                        compare_region("GE", "tensor<f32>") + ", " +
                        binary_region("stablehlo.add", "tensor<f32>") +
                        ") {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
                        "(tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>\n",
                    {0, 10, 0, 20}));
  // a * b element-wise through a map region: [4 10 18].
  cs.push_back(make("map", "tensor<3xi32>",
                    cst("a", "[1, 2, 3]", "tensor<3xi32>") +
                        cst("b", "[4, 5, 6]", "tensor<3xi32>") +
                        "  %r = \"stablehlo.map\"(%a, %b) (" +
                        binary_region("stablehlo.multiply", "tensor<i32>") +
                        ") {dimensions = array<i64: 0>} : (tensor<3xi32>, tensor<3xi32>) -> "
                        "tensor<3xi32>\n",
                    {4, 10, 18}));
  // sum of i for i = 0 .. 3: 6.
  const std::string while_generic =
      cst("i0", "0", "tensor<i32>") + cst("s0", "0", "tensor<i32>") + cst("n", "4", "tensor<i32>") +
      cst("one", "1", "tensor<i32>") +
      "  %w:2 = \"stablehlo.while\"(%i0, %s0) ({\n"
      "  ^bb0(%i: tensor<i32>, %s: tensor<i32>):\n"
      "    %c = \"stablehlo.compare\"(%i, %n) {comparison_direction = "
      "#stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n"
      "  }, {\n"
      "  ^bb0(%i: tensor<i32>, %s: tensor<i32>):\n"
      "    %i2 = \"stablehlo.add\"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
      "    %s2 = \"stablehlo.add\"(%s, %i) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n"
      "    \"stablehlo.return\"(%i2, %s2) : (tensor<i32>, tensor<i32>) -> ()\n"
      "  }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)\n"
      "  %r = \"stablehlo.add\"(%w#1, %i0) : (tensor<i32>, tensor<i32>) -> tensor<i32>\n";
  const std::string while_pretty =
      pcst("i0", "0", "tensor<i32>") + pcst("s0", "0", "tensor<i32>") +
      pcst("n", "4", "tensor<i32>") + pcst("one", "1", "tensor<i32>") +
      "  %w:2 = stablehlo.while(%i = %i0, %s = %s0) : tensor<i32>, tensor<i32>\n"
      "  cond {\n"
      "    %c = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> "
      "tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n"
      "  } do {\n"
      "    %i2 = stablehlo.add %i, %one : tensor<i32>\n"
      "    %s2 = stablehlo.add %s, %i : tensor<i32>\n"
      "    stablehlo.return %i2, %s2 : tensor<i32>, tensor<i32>\n"
      "  }\n"
      "  %r = stablehlo.add %w#1, %i0 : tensor<i32>\n";
  cs.push_back(make("while", "tensor<i32>", while_generic, {6}, while_pretty));
  for (const bool p : {true, false}) {
    cs.push_back(make(p ? "if_true" : "if_false", "tensor<2xf32>",
                      cst("p", p ? "true" : "false", "tensor<i1>") +
                          cst("a", "[1.0, 2.0]", "tensor<2xf32>") +
                          cst("b", "[3.0, 4.0]", "tensor<2xf32>") +
                          "  %r = \"stablehlo.if\"(%p) ({\n"
                          "    \"stablehlo.return\"(%a) : (tensor<2xf32>) -> ()\n"
                          "  }, {\n"
                          "    \"stablehlo.return\"(%b) : (tensor<2xf32>) -> ()\n"
                          "  }) : (tensor<i1>) -> tensor<2xf32>\n",
                      p ? std::vector<double>{1, 2} : std::vector<double>{3, 4}));
  }
  // Index 1 takes the second branch; 7 is out of range and takes the last.
  for (const int index : {1, 7}) {
    cs.push_back(make("case_" + std::to_string(index), "tensor<i64>",
                      cst("k", std::to_string(index), "tensor<i32>") +
                          "  %r = \"stablehlo.case\"(%k) ({\n" + cst("c0", "10", "tensor<i64>") +
                          "    \"stablehlo.return\"(%c0) : (tensor<i64>) -> ()\n  }, {\n" +
                          cst("c1", "20", "tensor<i64>") +
                          "    \"stablehlo.return\"(%c1) : (tensor<i64>) -> ()\n  }, {\n" +
                          cst("c2", "30", "tensor<i64>") +
                          "    \"stablehlo.return\"(%c2) : (tensor<i64>) -> ()\n"
                          "  }) : (tensor<i32>) -> tensor<i64>\n",
                      {index == 1 ? 20.0 : 30.0}));
  }
  cs.push_back(make("tuple_get_tuple_element", "tensor<i32>",
                    cst("a", "[1.0, 2.0]", "tensor<2xf32>") + cst("b", "7", "tensor<i32>") +
                        "  %t = \"stablehlo.tuple\"(%a, %b) : (tensor<2xf32>, tensor<i32>) -> "
                        "tuple<tensor<2xf32>, tensor<i32>>\n"
                        "  %r = \"stablehlo.get_tuple_element\"(%t) {index = 1 : i32} : "
                        "(tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>\n",
                    {7}));
  cs.push_back(make("optimization_barrier", "tensor<2xf32>",
                    cst("a", "[1.0, 2.0]", "tensor<2xf32>") + cst("b", "7", "tensor<i32>") +
                        "  %o:2 = \"stablehlo.optimization_barrier\"(%a, %b) : (tensor<2xf32>, "
                        "tensor<i32>) -> (tensor<2xf32>, tensor<i32>)\n"
                        "  %r = \"stablehlo.add\"(%o#0, %o#0) : (tensor<2xf32>, tensor<2xf32>) -> "
                        "tensor<2xf32>\n",
                    {2, 4}));
  // complex(re, im) * (1 + 2i), then real and imag: (1 + 2i)^2 = -3 + 4i, (3 - i)(1 + 2i) = 5 + 5i.
  const std::string complex_body =
      cst("re", "[1.0, 3.0]", "tensor<2xf32>") + cst("im", "[2.0, -1.0]", "tensor<2xf32>") +
      cst("w", "(1.0, 2.0)", "tensor<2xcomplex<f32>>") +
      "  %c = \"stablehlo.complex\"(%re, %im) : (tensor<2xf32>, tensor<2xf32>) -> "
      "tensor<2xcomplex<f32>>\n"
      "  %m = \"stablehlo.multiply\"(%c, %w) : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) "
      "-> tensor<2xcomplex<f32>>\n";
  cs.push_back(make("complex_real", "tensor<2xf32>",
                    complex_body + "  %r = \"stablehlo.real\"(%m) : (tensor<2xcomplex<f32>>) -> "
                                   "tensor<2xf32>\n",
                    {-3, 5}));
  cs.push_back(make("complex_imag", "tensor<2xf32>",
                    complex_body + "  %r = \"stablehlo.imag\"(%m) : (tensor<2xcomplex<f32>>) -> "
                                   "tensor<2xf32>\n",
                    {4, 5}));
  // To f16's precision: 1 + 2^-10 stays; 1 + 2^-11 ties to even (1); 1 + 3 * 2^-11 ties to
  // 1 + 2^-9.
  cs.push_back(make("reduce_precision", "tensor<3xf32>",
                    cst("x", "[1.0009765625, 1.00048828125, 1.00146484375]", "tensor<3xf32>") +
                        "  %r = \"stablehlo.reduce_precision\"(%x) {exponent_bits = 5 : i32, "
                        "mantissa_bits = 10 : i32} : (tensor<3xf32>) -> tensor<3xf32>\n",
                    {1.0009765625, 1, 1.001953125}));
  return cs;
}

std::vector<GenericCase> all_cases() {
  std::vector<GenericCase> cs = elementwise_cases();
  for (auto& c : other_cases()) cs.push_back(std::move(c));
  return cs;
}

class GenericFormOps : public ::testing::TestWithParam<GenericCase> {};

TEST_P(GenericFormOps, MatchesHandComputedValues) {
  const GenericCase& c = GetParam();
  expect_values(run(main_of(c.generic, c.result_type)), c, "generic");
  if (!c.pretty.empty()) expect_values(run(main_of(c.pretty, c.result_type)), c, "pretty");
}

INSTANTIATE_TEST_SUITE_P(GenericForm, GenericFormOps, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<GenericCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace ndbuf::program
