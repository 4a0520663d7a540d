// The verifier's type rules (program/verify/type_rules.hpp): every op has one, well-typed
// programs of every family compile, and mistyped ones are compile errors at the op's
// line:column. Every expected message below is worked out by hand from the spec's rules.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "program/ir/op_names.hpp"
#include "program/registry/op_registry.hpp"
#include "program/text/parser.hpp"
#include "program/verify/type_rules.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;

// @main(`args`) -> `result` whose body is `body` (starting on line 2) and returns %r.
std::string prog(const std::string& args, const std::string& result, const std::string& body) {
  return "func.func @main(" + args + ") -> " + result + " {\n" + body +
         "\n  return %r : " + result + "\n}\n";
}

// A region of two 0-d `type` arguments returning their sum.
std::string add_region(const std::string& type) {
  return "({\n  ^bb0(%p: " + type + ", %q: " + type +
         "):\n    %s = stablehlo.add %p, %q : " + type + "\n    stablehlo.return %s : " + type +
         "\n  })";
}

TEST(TypeInference, EverySupportedOpHasARule) {
  std::vector<std::string> missing;
  for (const std::string& name : supported_op_names()) {
    if (find_type_rule(op_id(name)) == nullptr) missing.push_back(name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without a type rule: " << ::testing::PrintToString(missing);
}

// The rule is a column of the op table: every row the planner builds has one, and a name
// without a row has none. Ids follow the table's order, and the parser gives every op its id.
TEST(TypeInference, EveryExecutableRowHasARule) {
  size_t index = 0;
  for (const OpRow& row : op_rows()) {
    EXPECT_NE(row.rule, nullptr) << row.name;
    EXPECT_EQ(static_cast<size_t>(row.id), index++) << row.name;
    EXPECT_EQ(op_id(std::string(row.name)), row.id) << row.name;
    EXPECT_EQ(find_type_rule(row.id), row.rule) << row.name;
    EXPECT_EQ(&op_row(row.id), &row) << row.name;
  }
  EXPECT_EQ(index, static_cast<size_t>(OpId::kUnknown));
  EXPECT_EQ(op_id("stablehlo.infeed"), OpId::kUnknown);
  EXPECT_EQ(find_type_rule(OpId::kUnknown), nullptr);
  EXPECT_EQ(op_id("stablehlo.add"), OpId::kAdd);
  EXPECT_EQ(op_id("chlo.broadcast_add"), OpId::kBroadcastAdd);
  EXPECT_EQ(op_id("return"), OpId::kReturn);
}

TEST(TypeInference, TheParserGivesEveryOpItsId) {
  const Module m = parse_program(
      "func.func @main(%x: tensor<2xf32>) -> tensor<f32> {\n"
      "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
      "  %t = chlo.tan %x : tensor<2xf32>\n"
      "  %s = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] : "
      "(tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
      "  func.return %s : tensor<f32>\n}\n");
  const Region& body = m.functions[0].body;
  ASSERT_EQ(body.ops.size(), 4u);
  EXPECT_EQ(body.ops[0].id, OpId::kConstant);
  EXPECT_EQ(body.ops[1].id, OpId::kTan);  // an alias, by its canonical name
  EXPECT_EQ(body.ops[2].id, OpId::kReduce);
  EXPECT_EQ(body.ops[2].regions[0].ops[0].id, OpId::kAdd);
  EXPECT_EQ(body.ops[2].regions[0].ops[1].id, OpId::kReturn);
  EXPECT_EQ(body.ops[3].id, OpId::kReturn);
}

// Well-typed programs of each family still compile.
TEST(TypeInference, WellTypedProgramsCompile) {
  const std::vector<std::string> programs = {
      // structure
      prog("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
           "  %r = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>"),
      prog("%a: tensor<2x3xf32>", "tensor<6xf32>",
           "  %r = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>"),
      prog("%a: tensor<3xf32>", "tensor<2x3xf32>",
           "  %r = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> "
           "tensor<2x3xf32>"),
      prog("%a: tensor<3xf32>, %z: tensor<f32>", "tensor<8xf32>",
           "  %r = \"stablehlo.pad\"(%a, %z) {edge_padding_low = array<i64: 1>, "
           "edge_padding_high = array<i64: 2>, interior_padding = array<i64: 1>} : "
           "(tensor<3xf32>, tensor<f32>) -> tensor<8xf32>"),
      prog("%a: tensor<4xf32>, %i: tensor<i32>", "tensor<2xf32>",
           "  %r = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = array<i64: 2>} : "
           "(tensor<4xf32>, tensor<i32>) -> tensor<2xf32>"),
      // element-wise, with a free result element type for convert and bitcast_convert
      prog("%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xi1>",
           "  %r = stablehlo.compare LT, %a, %b : (tensor<2xf32>, tensor<2xf32>) -> "
           "tensor<2xi1>"),
      prog("%a: tensor<2x3xf32>", "tensor<2x3xi8>",
           "  %r = stablehlo.convert %a : (tensor<2x3xf32>) -> tensor<2x3xi8>"),
      prog("%a: tensor<2xf64>", "tensor<2x2xf32>",
           "  %r = stablehlo.bitcast_convert %a : (tensor<2xf64>) -> tensor<2x2xf32>"),
      prog("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "tensor<2x4xf64>",
           "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
           "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>"),
      // reduction
      prog("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<2xf32>",
           "  %r = \"stablehlo.reduce\"(%a, %z) " + add_region("tensor<f32>") +
               " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>"),
      prog("%a: tensor<4xf32>, %z: tensor<f32>", "tensor<3xf32>",
           "  %r = \"stablehlo.reduce_window\"(%a, %z) " + add_region("tensor<f32>") +
               " {window_dimensions = array<i64: 2>} : (tensor<4xf32>, tensor<f32>) -> "
               "tensor<3xf32>"),
      // indexing
      prog("%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>", "tensor<4xi32>",
           "  %r = \"stablehlo.scatter\"(%x, %i, %u) " + add_region("tensor<i32>") +
               " {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
               "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xi32>, "
               "tensor<2x1xi32>, tensor<2xi32>) -> tensor<4xi32>"),
      // control
      prog("%p: tensor<i1>, %a: tensor<f32>", "tensor<f32>",
           "  %r = \"stablehlo.if\"(%p) ({\n    stablehlo.return %a : tensor<f32>\n  }, {\n"
           "    stablehlo.return %a : tensor<f32>\n  }) : (tensor<i1>) -> tensor<f32>"),
  };
  for (const std::string& text : programs) EXPECT_EQ(compile_error(text), "") << text;
}

TEST(TypeInference, DotGeneral) {
  // [2x3] . [3x4] contracts to [2x4], whatever the declared type says.
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "tensor<5x7xf32>",
                               "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x "
                               "[0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<5x7xf32>")),
            "2:8: 'stablehlo.dot_general' result type tensor<5x7xf32> should be tensor<2x4xf32>");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %b: tensor<4x5xf32>", "tensor<2x5xf32>",
                               "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x "
                               "[0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>")),
            "2:8: 'stablehlo.dot_general' dot_general: contracting dimension 1 of lhs has size 3 "
            "but dimension 0 of rhs has size 4.");
  EXPECT_EQ(
      compile_error(prog("%a: tensor<5x2x3xf32>, %b: tensor<6x3x4xf32>", "tensor<5x2x4xf32>",
                         "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], "
                         "contracting_dims = [2] x [1] : (tensor<5x2x3xf32>, tensor<6x3x4xf32>) "
                         "-> tensor<5x2x4xf32>")),
      "2:8: 'stablehlo.dot_general' dot_general: batching dimension 0 of lhs has size 5 but "
      "dimension 0 of rhs has size 6.");
}

TEST(TypeInference, Structure) {
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<4x2xf32>",
                               "  %r = stablehlo.reshape %a : (tensor<2x3xf32>) -> "
                               "tensor<4x2xf32>")),
            "2:8: 'stablehlo.reshape' cannot reshape tensor<2x3xf32> to tensor<4x2xf32>: the "
            "sizes differ");
  EXPECT_EQ(compile_error(prog("%a: tensor<3xf32>", "tensor<2x4xf32>",
                               "  %r = stablehlo.broadcast_in_dim %a, dims = [1] : "
                               "(tensor<3xf32>) -> tensor<2x4xf32>")),
            "2:8: 'stablehlo.broadcast_in_dim' operand axis 0 of size 3 cannot broadcast to "
            "size 4");
  EXPECT_EQ(compile_error(prog("%a: tensor<3xf32>", "tensor<2x3xf32>",
                               "  %r = stablehlo.broadcast_in_dim %a, dims = [2] : "
                               "(tensor<3xf32>) -> tensor<2x3xf32>")),
            "2:8: 'stablehlo.broadcast_in_dim' broadcast dimension 2 is outside [0, 2)");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<2x3xf32>",
                               "  %r = stablehlo.transpose %a, dims = [0, 0] : "
                               "(tensor<2x3xf32>) -> tensor<2x3xf32>")),
            "2:8: 'stablehlo.transpose' permutation entry 0 appears twice");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<2x3xf32>",
                               "  %r = stablehlo.transpose %a, dims = [1, 0] : "
                               "(tensor<2x3xf32>) -> tensor<2x3xf32>")),
            "2:8: 'stablehlo.transpose' result type tensor<2x3xf32> should have shape (3, 2)");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %b: tensor<2x4xf32>", "tensor<4x3xf32>",
                               "  %r = stablehlo.concatenate %a, %b, dim = 0 : "
                               "(tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>")),
            "2:8: 'stablehlo.concatenate' operands differ in a dimension other than 0");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %b: tensor<2x4xf32>", "tensor<2x6xf32>",
                               "  %r = stablehlo.concatenate %a, %b, dim = 1 : "
                               "(tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>")),
            "2:8: 'stablehlo.concatenate' result type tensor<2x6xf32> should be tensor<2x7xf32>");
}

TEST(TypeInference, SlicesPaddingAndIota) {
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>", "tensor<3xf32>",
                               "  %r = stablehlo.slice %a [0:3] : (tensor<2xf32>) -> "
                               "tensor<3xf32>")),
            "2:8: 'stablehlo.slice' slice [0:3:1] is invalid for axis 0 of size 2");
  // Elements 0, 2, 4 of six.
  EXPECT_EQ(compile_error(prog("%a: tensor<6xf32>", "tensor<2xf32>",
                               "  %r = stablehlo.slice %a [0:6:2] : (tensor<6xf32>) -> "
                               "tensor<2xf32>")),
            "2:8: 'stablehlo.slice' result type tensor<2xf32> should have shape (3)");
  // 1 low + 3 elements + 2 holes between them + 2 high = 8.
  EXPECT_EQ(compile_error(prog("%a: tensor<3xf32>, %z: tensor<f32>", "tensor<7xf32>",
                               "  %r = \"stablehlo.pad\"(%a, %z) {edge_padding_low = array<i64: "
                               "1>, edge_padding_high = array<i64: 2>, interior_padding = "
                               "array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<7xf32>")),
            "2:8: 'stablehlo.pad' result type tensor<7xf32> should be tensor<8xf32>");
  EXPECT_EQ(compile_error(prog("", "tensor<2x3xf32>",
                               "  %r = \"stablehlo.iota\"() {iota_dimension = 2 : i64} : () -> "
                               "tensor<2x3xf32>")),
            "2:8: 'stablehlo.iota' iota_dimension 2 is outside [0, 2)");
  EXPECT_EQ(compile_error(prog("%a: tensor<4xf32>, %i: tensor<i32>", "tensor<5xf32>",
                               "  %r = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = "
                               "array<i64: 5>} : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>")),
            "2:8: 'stablehlo.dynamic_slice' slice size 5 does not fit axis 0");
  EXPECT_EQ(compile_error(prog("%a: tensor<4xf32>, %i: tensor<i32>", "tensor<3xf32>",
                               "  %r = \"stablehlo.dynamic_slice\"(%a, %i) {slice_sizes = "
                               "array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<3xf32>")),
            "2:8: 'stablehlo.dynamic_slice' result type tensor<3xf32> should be tensor<2xf32>");
  EXPECT_EQ(
      compile_error(prog("%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>", "tensor<2x2xf32>",
                         "  %r = \"stablehlo.dynamic_slice\"(%a, %i, %j) {slice_sizes = "
                         "array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i64>) "
                         "-> tensor<2x2xf32>")),
      "2:8: 'stablehlo.dynamic_slice' start indices must share one type, not tensor<i32> "
      "and tensor<i64>");
}

TEST(TypeInference, ElementWise) {
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<3xf32>",
                               "  %r = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, "
                               "tensor<2xf32>) -> tensor<3xf32>")),
            "2:8: 'stablehlo.add' result type tensor<3xf32> should be tensor<2xf32>");
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xf32>",
                               "  %r = stablehlo.compare LT, %a, %b : (tensor<2xf32>, "
                               "tensor<2xf32>) -> tensor<2xf32>")),
            "2:8: 'stablehlo.compare' result type tensor<2xf32> should be tensor<2xi1>");
  EXPECT_EQ(
      compile_error(prog("%p: tensor<3xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xf32>",
                         "  %r = \"stablehlo.select\"(%p, %a, %b) : (tensor<3xi1>, "
                         "tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>")),
      "2:8: 'stablehlo.select' operand 1 tensor<3xi1> must be 0-d or of shape (2)");
  // convert keeps the shape; only the element type is the program's choice.
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<3x2xi32>",
                               "  %r = stablehlo.convert %a : (tensor<2x3xf32>) -> "
                               "tensor<3x2xi32>")),
            "2:8: 'stablehlo.convert' result type tensor<3x2xi32> should be tensor<2x3xi32>");
  // f32 -> f64 would pair two elements into one: the operand needs a last axis of 2.
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>", "tensor<2xf64>",
                               "  %r = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> "
                               "tensor<2xf64>")),
            "2:8: 'stablehlo.bitcast_convert' cannot turn tensor<2xf32> into tensor<2xf64>: a "
            "wider result type removes a last axis of the width ratio");
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>", "tensor<3xi32>",
                               "  %r = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> "
                               "tensor<3xi32>")),
            "2:8: 'stablehlo.bitcast_convert' cannot turn tensor<2xf32> into tensor<3xi32>: "
            "equal widths keep the shape");
}

TEST(TypeInference, GatherAndScatter) {
  const std::string gather_args = "%x: tensor<3x2xi32>, %i: tensor<2x1xi32>";
  const std::string gather_dims =
      "{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
      "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: ";
  EXPECT_EQ(compile_error(prog(gather_args, "tensor<2x3xi32>",
                               "  %r = \"stablehlo.gather\"(%x, %i) " + gather_dims +
                                   "1, 3>} : (tensor<3x2xi32>, tensor<2x1xi32>) -> "
                                   "tensor<2x3xi32>")),
            "2:8: 'stablehlo.gather' gather: slice size 3 of dimension 1 is outside [0, 2].");
  // Two indices, each a slice of one row (collapsed) of two elements.
  EXPECT_EQ(compile_error(prog(gather_args, "tensor<2x3xi32>",
                               "  %r = \"stablehlo.gather\"(%x, %i) " + gather_dims +
                                   "1, 2>} : (tensor<3x2xi32>, tensor<2x1xi32>) -> "
                                   "tensor<2x3xi32>")),
            "2:8: 'stablehlo.gather' result type tensor<2x3xi32> should be tensor<2x2xi32>");
  // A collapsed row of slice size 0 has no element to gather: static, so refused at compile
  // time (it failed only when the program ran, without line:column).
  EXPECT_EQ(compile_error(prog(gather_args, "tensor<2x2xi32>",
                               "  %r = \"stablehlo.gather\"(%x, %i) " + gather_dims +
                                   "0, 2>} : (tensor<3x2xi32>, tensor<2x1xi32>) -> "
                                   "tensor<2x2xi32>")),
            "2:8: 'stablehlo.gather' gather: collapsed dimension 0 has slice size 0, so its "
            "slices have no element to read.");
  // With no element to produce (no index), nothing is read and the same sizes are valid.
  EXPECT_EQ(compile_error(prog("%x: tensor<3x2xi32>, %i: tensor<0x1xi32>", "tensor<0x2xi32>",
                               "  %r = \"stablehlo.gather\"(%x, %i) " + gather_dims +
                                   "0, 2>} : (tensor<3x2xi32>, tensor<0x1xi32>) -> "
                                   "tensor<0x2xi32>")),
            "");
  const std::string scatter_dims =
      " {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
      "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : ";
  // Three updates for two indices: these failed only when the program ran.
  EXPECT_EQ(
      compile_error(prog(
          "%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<3xi32>", "tensor<4xi32>",
          "  %r = \"stablehlo.scatter\"(%x, %i, %u) " + add_region("tensor<i32>") + scatter_dims +
              "(tensor<4xi32>, tensor<2x1xi32>, tensor<3xi32>) -> "
              "tensor<4xi32>")),
      "2:8: 'stablehlo.scatter' scatter: update scatter dims must have the sizes of the "
      "scatter indices.");
  // A window of 5 elements cannot lie inside 4.
  EXPECT_EQ(compile_error(
                prog("%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<2x5xi32>", "tensor<4xi32>",
                     "  %r = \"stablehlo.scatter\"(%x, %i, %u) " + add_region("tensor<i32>") +
                         " {scatter_dimension_numbers = #stablehlo.scatter<"
                         "update_window_dims = [1], scatter_dims_to_operand_dims = [0], "
                         "index_vector_dim = 1>} : (tensor<4xi32>, tensor<2x1xi32>, "
                         "tensor<2x5xi32>) -> tensor<4xi32>")),
            "2:8: 'stablehlo.scatter' scatter: update window dim 1 has size 5, more than input "
            "dim 0 holds (4).");
  EXPECT_EQ(
      compile_error(prog(
          "%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>", "tensor<5xi32>",
          "  %r = \"stablehlo.scatter\"(%x, %i, %u) " + add_region("tensor<i32>") + scatter_dims +
              "(tensor<4xi32>, tensor<2x1xi32>, tensor<2xi32>) -> "
              "tensor<5xi32>")),
      "2:8: 'stablehlo.scatter' results must have the input types");
}

TEST(TypeInference, Reductions) {
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<3xf32>",
                               "  %r = \"stablehlo.reduce\"(%a, %z) " + add_region("tensor<f32>") +
                                   " {dimensions = array<i64: 1>} : (tensor<2x3xf32>, "
                                   "tensor<f32>) -> tensor<3xf32>")),
            "2:8: 'stablehlo.reduce' inputs must share one shape and results must have shape (2)");
  // The body returns an f64 accumulator for an f32 init value: at the body's return.
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>, %z: tensor<f32>", "tensor<2xf32>",
                               "  %r = \"stablehlo.reduce\"(%a, %z) ({\n"
                               "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
                               "    %s = stablehlo.convert %p : (tensor<f32>) -> tensor<f64>\n"
                               "    stablehlo.return %s : tensor<f64>\n"
                               "  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, "
                               "tensor<f32>) -> tensor<2xf32>")),
            "5:5: region of 'stablehlo.reduce' returns (tensor<f64>) but should return "
            "(tensor<f32>)");
  // Windows of 2 over 4 elements, stride 1: 3 windows.
  EXPECT_EQ(
      compile_error(prog("%a: tensor<4xf32>, %z: tensor<f32>", "tensor<4xf32>",
                         "  %r = \"stablehlo.reduce_window\"(%a, %z) " + add_region("tensor<f32>") +
                             " {window_dimensions = array<i64: 2>} : (tensor<4xf32>, "
                             "tensor<f32>) -> tensor<4xf32>")),
      "2:8: 'stablehlo.reduce_window' results must have shape (3)");
  const std::string comparator =
      "({\n  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
      "    %c = stablehlo.compare LT, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n  })";
  EXPECT_EQ(compile_error(prog("%a: tensor<4xf32>", "tensor<4xf32>",
                               "  %r = \"stablehlo.sort\"(%a) " + comparator +
                                   " {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>")),
            "2:8: 'stablehlo.sort' dimension 1 is outside [0, 1)");
  EXPECT_EQ(compile_error(prog("%a: tensor<4xf32>", "tensor<4xf64>",
                               "  %r = \"stablehlo.sort\"(%a) " + comparator +
                                   " {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>")),
            "2:8: 'stablehlo.sort' needs operands, one comparator region and results of the "
            "operand types");
}

TEST(TypeInference, ControlFlow) {
  const std::string cond =
      "  %r = \"stablehlo.while\"(%a) ({\n  ^bb0(%x: tensor<i32>):\n"
      "    %c = stablehlo.compare LT, %x, %x : (tensor<i32>, tensor<i32>) -> tensor<i1>\n";
  // The body turns the i32 loop state into f32.
  EXPECT_EQ(
      compile_error(prog("%a: tensor<i32>", "tensor<i32>",
                         cond + "    stablehlo.return %c : tensor<i1>\n  }, {\n"
                                "  ^bb0(%x: tensor<i32>):\n"
                                "    %n = stablehlo.convert %x : (tensor<i32>) -> tensor<f32>\n"
                                "    stablehlo.return %n : tensor<f32>\n"
                                "  }) : (tensor<i32>) -> tensor<i32>")),
      "9:5: region of 'stablehlo.while' returns (tensor<f32>) but should return "
      "(tensor<i32>)");
  // The condition returns the i32 state instead of an i1.
  EXPECT_EQ(compile_error(prog("%a: tensor<i32>", "tensor<i32>",
                               cond + "    stablehlo.return %x : tensor<i32>\n  }, {\n"
                                      "  ^bb0(%x: tensor<i32>):\n"
                                      "    stablehlo.return %x : tensor<i32>\n"
                                      "  }) : (tensor<i32>) -> tensor<i32>")),
            "5:5: region of 'stablehlo.while' returns (tensor<i32>) but should return "
            "(tensor<i1>)");
  EXPECT_EQ(compile_error(prog("%p: tensor<i1>, %a: tensor<f32>", "tensor<f32>",
                               "  %r = \"stablehlo.if\"(%p) ({\n"
                               "    stablehlo.return %a : tensor<f32>\n  }, {\n"
                               "    %b = stablehlo.convert %a : (tensor<f32>) -> tensor<f64>\n"
                               "    stablehlo.return %b : tensor<f64>\n"
                               "  }) : (tensor<i1>) -> tensor<f32>")),
            "6:5: region of 'stablehlo.if' returns (tensor<f64>) but should return "
            "(tensor<f32>)");
  EXPECT_EQ(compile_error(prog("%k: tensor<i32>, %a: tensor<2xf32>", "tensor<3xf32>",
                               "  %r = \"stablehlo.case\"(%k) ({\n"
                               "    stablehlo.return %a : tensor<2xf32>\n  }, {\n"
                               "    stablehlo.return %a : tensor<2xf32>\n"
                               "  }) : (tensor<i32>) -> tensor<3xf32>")),
            "3:5: region of 'stablehlo.case' returns (tensor<2xf32>) but should return "
            "(tensor<3xf32>)");
  EXPECT_EQ(compile_error("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                          "  return %x : tensor<2xf32>\n}\n" +
                          prog("%a: tensor<2xf32>", "tensor<3xf32>",
                               "  %r = func.call @f(%a) : (tensor<2xf32>) -> tensor<3xf32>")),
            "5:8: 'func.call' type (tensor<2xf32>) -> (tensor<3xf32>) does not match @f's "
            "(tensor<2xf32>) -> (tensor<2xf32>)");
}

TEST(TypeInference, MapMapsEveryAxisInOrder) {
  const std::string map = "  %r = \"stablehlo.map\"(%a, %a) " + add_region("tensor<f32>") +
                          " {dimensions = array<i64: ";
  const std::string sig = ">} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>";
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<2x3xf32>", map + "0, 1" + sig)), "");
  EXPECT_EQ(compile_error(prog("%a: tensor<2x3xf32>", "tensor<2x3xf32>", map + "1, 0" + sig)),
            "2:8: 'stablehlo.map' dimensions must list the result's 2 axes in order");
}

// The rules run before planning, in the planner's order: an op this runtime does not run is
// still the error when a mistyped op follows it.
TEST(TypeInference, UnsupportedOpBeforeAMistypedOneIsTheError) {
  EXPECT_EQ(compile_error(prog("%a: tensor<2xf32>", "tensor<3xf32>",
                               "  %0 = \"stablehlo.cosine_similarity\"(%a) : (tensor<2xf32>) -> "
                               "tensor<2xf32>\n"
                               "  %r = \"stablehlo.add\"(%0, %0) : (tensor<2xf32>, "
                               "tensor<2xf32>) -> tensor<3xf32>")),
            "2:8: op 'stablehlo.cosine_similarity' is not supported by this runtime");
}

}  // namespace
}  // namespace ndbuf::program
