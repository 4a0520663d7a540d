// The op table (program/registry/ops.def) walked row by row and enum by enum: names unique,
// aliases resolving, builders present, every element-wise enumerator owned by exactly one row,
// a parser for every special pretty form; and the behaviour the table fixed: unknown
// #stablehlo.* attributes are errors with a position, NOTYPE compares take the default type,
// chlo.tan computes tan.
#include "program/registry/op_registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "program/ir/op_names.hpp"
#include "program/text/parser.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::f32;
using testing::f64;
using testing::run;
using testing::values;

// Every enumerator, listed here by hand (not from ops.def): a row lost from the table
// fails to compile here, a row added needs its line here.
const UnaryOp kAllUnary[] = {
    UnaryOp::kNegate,
    UnaryOp::kAbs,
    UnaryOp::kSign,
    UnaryOp::kNot,
    UnaryOp::kPopcnt,
    UnaryOp::kCountLeadingZeros,
    UnaryOp::kExponential,
    UnaryOp::kExponentialMinusOne,
    UnaryOp::kLog,
    UnaryOp::kLogPlusOne,
    UnaryOp::kLogistic,
    UnaryOp::kSqrt,
    UnaryOp::kRsqrt,
    UnaryOp::kCbrt,
    UnaryOp::kSquare,
    UnaryOp::kSine,
    UnaryOp::kCosine,
    UnaryOp::kTan,
    UnaryOp::kTanh,
    UnaryOp::kSinh,
    UnaryOp::kCosh,
    UnaryOp::kAsin,
    UnaryOp::kAcos,
    UnaryOp::kAtan,
    UnaryOp::kAsinh,
    UnaryOp::kAcosh,
    UnaryOp::kAtanh,
    UnaryOp::kFloor,
    UnaryOp::kCeil,
    UnaryOp::kRoundNearestEven,
    UnaryOp::kRoundNearestAfz,
    UnaryOp::kIsFinite,
    UnaryOp::kIsInf,
    UnaryOp::kIsPosInf,
    UnaryOp::kIsNegInf,
    UnaryOp::kReal,
    UnaryOp::kImag,
    UnaryOp::kErf,
    UnaryOp::kErfc,
    UnaryOp::kErfInv,
    UnaryOp::kLgamma,
    UnaryOp::kDigamma,
    UnaryOp::kBesselI1e,
    UnaryOp::kConj,
};

const BinaryOp kAllBinary[] = {
    BinaryOp::kAdd,
    BinaryOp::kSubtract,
    BinaryOp::kMultiply,
    BinaryOp::kDivide,
    BinaryOp::kRemainder,
    BinaryOp::kPower,
    BinaryOp::kMaximum,
    BinaryOp::kMinimum,
    BinaryOp::kAtan2,
    BinaryOp::kAnd,
    BinaryOp::kOr,
    BinaryOp::kXor,
    BinaryOp::kShiftLeft,
    BinaryOp::kShiftRightArithmetic,
    BinaryOp::kShiftRightLogical,
    BinaryOp::kComplex,
    BinaryOp::kPolygamma,
    BinaryOp::kZeta,
    BinaryOp::kNextAfter,
};

TEST(OpRegistry, NamesAreUniqueAndEveryRowHasABuilder) {
  std::set<std::string_view> names;
  for (const OpRow& row : op_rows()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name << " has two rows";
    EXPECT_EQ(find_op(row.name), &row) << row.name;
    EXPECT_TRUE(is_supported_op(std::string(row.name))) << row.name;
    if (row.kind == OpKind::kTerminator) {
      EXPECT_EQ(row.name, "return");  // the interpreter runs it; the one row without a builder
    } else {
      EXPECT_NE(row.build, nullptr) << row.name << " has no builder";
    }
  }
  EXPECT_EQ(find_op("stablehlo.frobnicate"), nullptr);
  EXPECT_FALSE(is_supported_op("stablehlo.frobnicate"));
}

TEST(OpRegistry, AliasesResolveToRows) {
  const std::map<std::string, std::string> expected = {{"func.return", "return"},
                                                       {"stablehlo.return", "return"},
                                                       {"call", "func.call"},
                                                       {"chlo.tan", "stablehlo.tan"}};
  EXPECT_EQ(op_aliases().size(), expected.size());
  for (const auto& [alias, canonical] : op_aliases()) {
    EXPECT_EQ(find_op(alias), nullptr) << alias << " is both an alias and a row";
    EXPECT_NE(find_op(canonical), nullptr) << alias << " -> " << canonical;
    EXPECT_EQ(canonical_op_name(std::string(alias)), expected.at(std::string(alias)));
  }
  EXPECT_EQ(canonical_op_name("stablehlo.add"), "stablehlo.add");
}

TEST(OpRegistry, EveryUnaryEnumeratorHasExactlyOneRow) {
  std::map<UnaryOp, int> rows_of;
  for (const OpRow& row : op_rows()) {
    if (row.kind == OpKind::kUnary) ++rows_of[row.unary];
  }
  EXPECT_EQ(rows_of.size(), std::size(kAllUnary));
  for (const UnaryOp op : kAllUnary) {
    EXPECT_EQ(rows_of[op], 1) << op_name(op);
    const OpRow* row = find_op(op_name(op));
    ASSERT_NE(row, nullptr) << op_name(op);
    EXPECT_EQ(row->kind, OpKind::kUnary);
    EXPECT_EQ(row->unary, op);
    EXPECT_EQ(unary_op_named(op_name(op)), op);
  }
  EXPECT_EQ(op_name(UnaryOp::kTan), "stablehlo.tan");
  EXPECT_EQ(op_name(UnaryOp::kSquare), "chlo.square");
  EXPECT_EQ(unary_op_named("stablehlo.add"), std::nullopt);
}

TEST(OpRegistry, EveryBinaryEnumeratorHasExactlyOneRowAndBroadcastsNameOne) {
  std::map<BinaryOp, int> rows_of;
  for (const OpRow& row : op_rows()) {
    if (row.kind == OpKind::kBinary) ++rows_of[row.binary];
    if (row.kind == OpKind::kBroadcast && row.build == find_op("chlo.broadcast_add")->build) {
      // chlo.broadcast_NAME runs the kernel of the element-wise op NAME.
      const std::string_view base = row.name.substr(std::string_view("chlo.broadcast_").size());
      const std::string_view kernel = op_name(row.binary);
      EXPECT_EQ(kernel.substr(kernel.find('.') + 1), base) << row.name;
    }
  }
  EXPECT_EQ(rows_of.size(), std::size(kAllBinary));
  for (const BinaryOp op : kAllBinary) {
    EXPECT_EQ(rows_of[op], 1) << op_name(op);
    const OpRow* row = find_op(op_name(op));
    ASSERT_NE(row, nullptr) << op_name(op);
    EXPECT_EQ(row->binary, op);
    EXPECT_EQ(binary_op_named(op_name(op)), op);
  }
}

TEST(OpRegistry, CompareWordsRoundTrip) {
  const std::map<std::string, CompareDirection> directions = {
      {"EQ", CompareDirection::kEQ}, {"NE", CompareDirection::kNE}, {"GE", CompareDirection::kGE},
      {"GT", CompareDirection::kGT}, {"LE", CompareDirection::kLE}, {"LT", CompareDirection::kLT}};
  for (const auto& [word, direction] : directions) {
    EXPECT_EQ(compare_direction_named(word), direction) << word;
  }
  const std::map<std::string, CompareType> types = {{"FLOAT", CompareType::kFloat},
                                                    {"TOTALORDER", CompareType::kTotalOrder},
                                                    {"SIGNED", CompareType::kSigned},
                                                    {"UNSIGNED", CompareType::kUnsigned}};
  for (const auto& [word, type] : types) {
    EXPECT_EQ(compare_type_named(word), type) << word;
    EXPECT_EQ(compare_type_name(type), word);
  }
  EXPECT_EQ(compare_direction_named("LTE"), std::nullopt);
  EXPECT_EQ(compare_type_for("NOTYPE", DType::kI32), CompareType::kSigned);
  EXPECT_EQ(compare_type_for("", DType::kU8), CompareType::kUnsigned);
  EXPECT_EQ(compare_type_for("NOTYPE", DType::kF32), CompareType::kFloat);
  EXPECT_EQ(compare_type_for("SORTED", DType::kF32), std::nullopt);
}

TEST(OpRegistry, FusibleRowsAreTheElementWiseOps) {
  const std::set<std::string_view> others = {"stablehlo.compare", "stablehlo.select",
                                             "stablehlo.clamp", "stablehlo.convert",
                                             "stablehlo.reduce_precision"};
  for (const OpRow& row : op_rows()) {
    const bool element_wise =
        row.kind == OpKind::kUnary || row.kind == OpKind::kBinary || others.count(row.name) > 0;
    EXPECT_EQ(row.fusible, element_wise) << row.name;
  }
}

TEST(OpRegistry, AttributeNamesAreWords) {
  for (const OpRow& row : op_rows()) {
    for (const AttrName& attr : attr_names(row)) {
      EXPECT_FALSE(attr.name.empty()) << row.name;
      EXPECT_FALSE(attr.pretty.empty()) << row.name;
      EXPECT_EQ(attr.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_."), std::string::npos)
          << row.name << ": " << attr.name;
      EXPECT_EQ(generic_attr_name(row, attr.pretty), attr.name) << row.name;
    }
  }
  EXPECT_EQ(generic_attr_name(*find_op("stablehlo.pad"), "interior"), "interior_padding");
  EXPECT_EQ(generic_attr_name(*find_op("stablehlo.pad"), "mhlo.sharding"), "mhlo.sharding");
}

// One program per special pretty form, written by hand in that form.
const std::map<std::string_view, std::string> kPrettySamples = {
    {"stablehlo.constant", "  %r = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"},
    {"func.call", "  %r = func.call @main(%x) : (tensor<2xf32>) -> tensor<2xf32>\n"},
    {"stablehlo.slice", "  %r = stablehlo.slice %x [0:2] : (tensor<2xf32>) -> tensor<2xf32>\n"},
    {"stablehlo.get_tuple_element",
     "  %t = stablehlo.tuple %x : tuple<tensor<2xf32>>\n"
     "  %r = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>>) -> tensor<2xf32>\n"},
    {"stablehlo.while",
     "  %r = stablehlo.while(%i = %x) : tensor<2xf32>\n"
     "   cond {\n    %c = stablehlo.constant dense<false> : tensor<i1>\n"
     "    stablehlo.return %c : tensor<i1>\n   } do {\n    stablehlo.return %i : tensor<2xf32>\n"
     "   }\n"},
    {"stablehlo.reduce",
     "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
     "  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : "
     "(tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
     "  %r = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>\n"},
    {"chlo.top_k",
     "  %v, %i = chlo.top_k(%x, k = 2) : tensor<2xf32> -> (tensor<2xf32>, tensor<2xi32>)\n"
     "  %r = stablehlo.add %v, %x : tensor<2xf32>\n"},
    {"stablehlo.custom_call",
     "  %r = stablehlo.custom_call @target(%x) {api_version = 4 : i32} : "
     "(tensor<2xf32>) -> tensor<2xf32>\n"},
    {"stablehlo.convolution",
     "  %k = stablehlo.constant dense<1.0> : tensor<1x1x1xf32>\n"
     "  %a = stablehlo.reshape %x : (tensor<2xf32>) -> tensor<1x2x1xf32>\n"
     "  %c = stablehlo.convolution(%a, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
     "window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
     "(tensor<1x2x1xf32>, tensor<1x1x1xf32>) -> tensor<1x2x1xf32>\n"
     "  %r = stablehlo.reshape %c : (tensor<1x2x1xf32>) -> tensor<2xf32>\n"},
};

TEST(OpRegistry, EverySpecialPrettyFormParses) {
  std::set<PrettyForm> seen;
  for (const OpRow& row : op_rows()) {
    if (row.pretty == PrettyForm::kItems) continue;
    seen.insert(row.pretty);
    auto sample = kPrettySamples.find(row.name);
    ASSERT_NE(sample, kPrettySamples.end()) << row.name << " has a pretty form but no sample";
    const std::string text = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n" +
                             sample->second + "  return %r : tensor<2xf32>\n}\n";
    const Module module = parse_program(text);
    const Region& body = module.functions.at(0).body;
    bool found = false;
    for (const Op& op : body.ops) found = found || op.name == row.name;
    EXPECT_TRUE(found) << row.name;
  }
  EXPECT_EQ(seen.size(), kPrettySamples.size());  // one row per special form
}

TEST(OpRegistry, StructuredAttributeKindsAreStablehloOnes) {
  std::set<std::string_view> names;
  for (const std::string_view name : structured_attr_names()) {
    EXPECT_EQ(name.rfind("stablehlo.", 0), 0u) << name;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_NE(structured_attr_form(name), nullptr);
  }
  EXPECT_EQ(*structured_attr_form("stablehlo.conv"), StructuredForm::kConvolution);
  EXPECT_EQ(*structured_attr_form("stablehlo.gather"), StructuredForm::kFields);
  EXPECT_EQ(structured_attr_form("stablehlo.foo"), nullptr);
}

std::string negate_with(const std::string& attrs) {
  return "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "  %r = stablehlo.negate %x {" +
         attrs + "} : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n";
}

TEST(OpRegistry, UnknownStablehloAttributeIsAnErrorAtItsPosition) {
  // Line 2: "  %r = stablehlo.negate %x {a = " is 32 characters, so '#' is column 33.
  EXPECT_EQ(compile_error(negate_with("a = #stablehlo.foo<bar = 1>")),
            "2:33: unknown StableHLO attribute '#stablehlo.foo'");
  // Inside a list, in the generic form: column 37 ("  %r = \"stablehlo.negate\"(%x) {a = [").
  EXPECT_EQ(compile_error("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                          "  %r = \"stablehlo.negate\"(%x) {a = [#stablehlo.dott<>]} : "
                          "(tensor<2xf32>) -> tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n"),
            "2:37: unknown StableHLO attribute '#stablehlo.dott'");
}

TEST(OpRegistry, KnownAndForeignAttributesAreStillAccepted) {
  for (const std::string attrs :
       {"result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = "
        "#stablehlo.result_accuracy_mode<DEFAULT>>",
        "channel = #stablehlo.channel_handle<handle = 1, type = 0>",
        "mhlo.sharding = \"{replicated}\", jax.result_info = \"\", mhlo.frontend_attributes = {}",
        "sdy = #sdy.sharding<@mesh, [{}]>", "alias = #loc3", "a = #chlo<comparison_direction LT>",
        "b = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, "
        "operand_tuple_indices = []>]"}) {
    EXPECT_EQ(compile_error(negate_with(attrs)), "") << attrs;
  }
  const auto r = run(negate_with("unknown_name = 3 : i64"), {f32({2}, {1.5f, -2})});
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{-1.5f, 2}));
}

TEST(OpRegistry, CompareWithNotypeTakesTheDefaultType) {
  // Signed compare of [-1, 5] < [3, 2]: -1 < 3 and not 5 < 2 (an unsigned compare would say
  // 0xFFFFFFFF < 3 is false).
  const std::string text =
      "func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi1> {\n"
      "  %r = stablehlo.compare LT, %a, %b, NOTYPE : (tensor<2xi32>, tensor<2xi32>) -> "
      "tensor<2xi1>\n  return %r : tensor<2xi1>\n}\n";
  const auto r = run(text, {testing::tensor_of<int32_t>(DType::kI32, {2}, {-1, 5}),
                            testing::tensor_of<int32_t>(DType::kI32, {2}, {3, 2})});
  EXPECT_EQ(values<uint8_t>(r[0]), (std::vector<uint8_t>{1, 0}));
}

TEST(OpRegistry, ChloTanIsStablehloTan) {
  // tan(0.5) and tan(-1) to 17 digits (R: sprintf("%.17g", tan(c(0.5, -1)))).
  const std::string text =
      "func.func @main(%a: tensor<2xf64>) -> tensor<2xf64> {\n"
      "  %r = chlo.tan %a : tensor<2xf64>\n  return %r : tensor<2xf64>\n}\n";
  const auto r = run(text, {f64({2}, {0.5, -1})});
  EXPECT_NEAR(values<double>(r[0])[0], 0.54630248984379048, 1e-15);
  EXPECT_NEAR(values<double>(r[0])[1], -1.5574077246549023, 1e-15);
  const Module module = parse_program(text);
  EXPECT_EQ(module.functions.at(0).body.ops.at(0).name, "stablehlo.tan");
}

}  // namespace
}  // namespace ndbuf::program
