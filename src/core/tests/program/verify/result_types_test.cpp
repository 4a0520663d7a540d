// Declared result types are checked against the spec's inferred types at compile time and region
// signatures against what the kernels call them with.
#include <gtest/gtest.h>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::run;
using testing::values;

// @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) with `body`, returning `result`.
std::string dot_main(const std::string& body, const std::string& result) {
  return "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> " + result + " {\n" + body +
         "\n  return %r : " + result + "\n}\n";
}

const char kDot57[] =
    "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
    "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<5x7xf32>\n";
const char kDot57Error[] =
    "2:8: 'stablehlo.dot_general' result type tensor<5x7xf32> should be tensor<2x4xf32>";

TEST(ResultTypes, MistypedDotGeneralIsACompileErrorWhateverFollows) {
  // The reported programs: a slice of the rows that do not exist (a segfault), a dynamic_slice
  // (bytes from outside the result), element-wise ops and a transpose under a 2x50000000 type.
  EXPECT_EQ(compile_error(dot_main(std::string(kDot57) +
                                       "  %r = stablehlo.slice %0 [4:5, 0:7] : (tensor<5x7xf32>) "
                                       "-> tensor<1x7xf32>",
                                   "tensor<1x7xf32>")),
            kDot57Error);
  EXPECT_EQ(
      compile_error(dot_main(std::string(kDot57) +
                                 "  %i = stablehlo.constant dense<3> : tensor<i32>\n"
                                 "  %r = stablehlo.dynamic_slice %0, %i, %i, sizes = [2, 4] : "
                                 "(tensor<5x7xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>",
                             "tensor<2x4xf32>")),
      kDot57Error);
  const std::string wide =
      "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
      "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x50000000xf32>\n";
  const std::string wide_error =
      "2:8: 'stablehlo.dot_general' result type tensor<2x50000000xf32> should be "
      "tensor<2x4xf32>";
  EXPECT_EQ(compile_error(dot_main(wide + "  %r = stablehlo.add %0, %0 : tensor<2x50000000xf32>",
                                   "tensor<2x50000000xf32>")),
            wide_error);
  EXPECT_EQ(compile_error(dot_main(wide + "  %r = stablehlo.transpose %0, dims = [1, 0] : "
                                          "(tensor<2x50000000xf32>) -> tensor<50000000x2xf32>",
                                   "tensor<50000000x2xf32>")),
            wide_error);
}

TEST(ResultTypes, DotGeneralRulesOfTheSpec) {
  // Batch dims first, then the free lhs dims, then the free rhs dims.
  const std::string batched =
      "func.func @main(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x4x2xf32> {\n"
      "  %r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x "
      "[1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x4x2xf32>\n"
      "  return %r : tensor<5x4x2xf32>\n}\n";
  EXPECT_EQ(compile_error(batched),
            "2:8: 'stablehlo.dot_general' result type tensor<5x4x2xf32> should be "
            "tensor<5x2x4xf32>");
  EXPECT_EQ(compile_error(dot_main("  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] "
                                   "x [1] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>",
                                   "tensor<2x3xf32>")),
            "2:8: 'stablehlo.dot_general' dot_general: contracting dimension 1 of lhs has size 3 "
            "but dimension 1 of rhs has size 4.");
  EXPECT_EQ(compile_error("func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) -> "
                          "tensor<2x4xf64> {\n"
                          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                          "(tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf64>\n"
                          "  return %r : tensor<2x4xf64>\n}\n"),
            "2:8: 'stablehlo.dot_general' operands must have one element type, not "
            "tensor<2x3xf32> and tensor<3x4xf64>");
  // The result's element type is the program's choice (the products accumulate in it):
  // [[1 2 3] [4 5 6]] x [[1] [1] [1]] = [[6] [15]] in f64.
  const auto out =
      run("func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x1xf32>) -> tensor<2x1xf64> {\n"
          "  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, "
          "tensor<3x1xf32>) -> tensor<2x1xf64>\n"
          "  return %r : tensor<2x1xf64>\n}\n",
          {testing::f32({2, 3}, {1, 2, 3, 4, 5, 6}), testing::f32({3, 1}, {1, 1, 1})});
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{6, 15}));
}

TEST(ResultTypes, DotIsTheRankOneAndTwoCase) {
  const auto dot = [](const std::string& lhs, const std::string& rhs, const std::string& out) {
    return compile_error("func.func @main(%a: " + lhs + ", %b: " + rhs + ") -> " + out +
                         " {\n  %r = \"stablehlo.dot\"(%a, %b) : (" + lhs + ", " + rhs + ") -> " +
                         out + "\n  return %r : " + out + "\n}\n");
  };
  EXPECT_EQ(dot("tensor<3xf32>", "tensor<3xf32>", "tensor<f32>"), "");
  EXPECT_EQ(dot("tensor<2x3xf32>", "tensor<3xf32>", "tensor<2xf32>"), "");
  EXPECT_EQ(dot("tensor<3xf32>", "tensor<3x4xf32>", "tensor<4xf32>"), "");
  EXPECT_EQ(dot("tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>"),
            "2:8: 'stablehlo.dot' result type tensor<3xf32> should be tensor<f32>");
  EXPECT_EQ(dot("tensor<2x3xf32>", "tensor<3x4xf32>", "tensor<4x2xf32>"),
            "2:8: 'stablehlo.dot' result type tensor<4x2xf32> should be tensor<2x4xf32>");
  EXPECT_EQ(dot("tensor<2x3xf32>", "tensor<4x2xf32>", "tensor<2x2xf32>"),
            "2:8: 'stablehlo.dot' dot_general: contracting dimension 1 of lhs has size 3 but "
            "dimension 0 of rhs has size 4.");
  EXPECT_EQ(dot("tensor<1x2x3xf32>", "tensor<3xf32>", "tensor<1x2xf32>"),
            "2:8: 'stablehlo.dot' dot: operands must have rank 1 or 2, not (1, 2, 3) and (3).");
}

std::string top_k(const std::string& values, const std::string& indices) {
  return "func.func @main(%x: tensor<2x5xf32>) -> (" + values + ", " + indices +
         ") {\n  %r:2 = \"chlo.top_k\"(%x) {k = 3 : i64} : (tensor<2x5xf32>) -> (" + values + ", " +
         indices + ")\n  return %r#0, %r#1 : " + values + ", " + indices + "\n}\n";
}

TEST(ResultTypes, TopKGivesValuesAndI32IndicesWithLastDimK) {
  EXPECT_EQ(compile_error(top_k("tensor<2x3xf32>", "tensor<2x3xi32>")), "");
  EXPECT_EQ(compile_error(top_k("tensor<2x5xf32>", "tensor<2x3xi32>")),
            "2:10: 'chlo.top_k' result 1 type tensor<2x5xf32> should be tensor<2x3xf32>");
  EXPECT_EQ(compile_error(top_k("tensor<2x3xf64>", "tensor<2x3xi32>")),
            "2:10: 'chlo.top_k' result 1 type tensor<2x3xf64> should be tensor<2x3xf32>");
  EXPECT_EQ(compile_error(top_k("tensor<2x3xf32>", "tensor<2x3xi64>")),
            "2:10: 'chlo.top_k' result 2 type tensor<2x3xi64> should be tensor<2x3xi32>");
  EXPECT_EQ(compile_error(top_k("tensor<2x3xf32>", "tensor<50000000xi32>")),
            "2:10: 'chlo.top_k' result 2 type tensor<50000000xi32> should be tensor<2x3xi32>");
}

TEST(ResultTypes, BitcastConvertShapesFollowTheWidths) {
  const auto bitcast = [](const std::string& in, const std::string& out) {
    return compile_error("func.func @main(%x: " + in + ") -> " + out +
                         " {\n  %r = stablehlo.bitcast_convert %x : (" + in + ") -> " + out +
                         "\n  return %r : " + out + "\n}\n");
  };
  EXPECT_EQ(bitcast("tensor<2xf32>", "tensor<2x4xi8>"), "");
  EXPECT_EQ(bitcast("tensor<2xf32>", "tensor<50000000xi32>"),
            "2:8: 'stablehlo.bitcast_convert' cannot turn tensor<2xf32> into "
            "tensor<50000000xi32>: equal widths keep the shape");
  EXPECT_EQ(bitcast("tensor<2xf32>", "tensor<2x2xi8>"),
            "2:8: 'stablehlo.bitcast_convert' cannot turn tensor<2xf32> into tensor<2x2xi8>: a "
            "narrower result type adds a last axis of the width ratio");
  EXPECT_EQ(bitcast("tensor<2x4xi8>", "tensor<4xf32>"),
            "2:8: 'stablehlo.bitcast_convert' cannot turn tensor<2x4xi8> into tensor<4xf32>: a "
            "wider result type removes a last axis of the width ratio");
}

// One op `op_text` over %x: tensor<4xf32> in @main returning `result`.
std::string unary_main(const std::string& op_text, const std::string& result) {
  return "func.func @main(%x: tensor<4xf32>) -> " + result + " {\n  %r = " + op_text +
         "\n  return %r : " + result + "\n}\n";
}

TEST(ResultTypes, BuildersThatCheckedOnlyTheShapeCheckTheElementTypeToo) {
  EXPECT_EQ(
      compile_error(unary_main(
          "stablehlo.reverse %x, dims = [0] : (tensor<4xf32>) -> tensor<4xi32>", "tensor<4xi32>")),
      "2:8: 'stablehlo.reverse' result type tensor<4xi32> should be tensor<4xf32>");
  EXPECT_EQ(compile_error(unary_main("stablehlo.concatenate %x, %x, dim = 0 : (tensor<4xf32>, "
                                     "tensor<4xf32>) -> tensor<8xf64>",
                                     "tensor<8xf64>")),
            "2:8: 'stablehlo.concatenate' result type tensor<8xf64> should be tensor<8xf32>");
  EXPECT_EQ(
      compile_error(unary_main("stablehlo.pad %x, %x, low = [1], high = [0], interior = [0] : "
                               "(tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>",
                               "tensor<5xf32>")),
      "2:8: 'stablehlo.pad' padding value must be a 0-d tensor of the operand's element "
      "type");
  const std::string i = "  %i = stablehlo.constant dense<1> : tensor<i32>\n";
  EXPECT_EQ(compile_error("func.func @main(%x: tensor<4xf32>) -> tensor<2xi8> {\n" + i +
                          "  %r = stablehlo.dynamic_slice %x, %i, sizes = [2] : (tensor<4xf32>, "
                          "tensor<i32>) -> tensor<2xi8>\n  return %r : tensor<2xi8>\n}\n"),
            "3:8: 'stablehlo.dynamic_slice' result type tensor<2xi8> should be tensor<2xf32>");
  EXPECT_EQ(compile_error("func.func @main(%x: tensor<4xf32>) -> tensor<4xf64> {\n" + i +
                          "  %r = stablehlo.dynamic_update_slice %x, %x, %i : (tensor<4xf32>, "
                          "tensor<4xf32>, tensor<i32>) -> tensor<4xf64>\n"
                          "  return %r : tensor<4xf64>\n}\n"),
            "3:8: 'stablehlo.dynamic_update_slice' result type tensor<4xf64> should be "
            "tensor<4xf32>");
}

// A reduce or reduce_window of %x: tensor<4xf32> with init %z: tensor<f32> and a body
// (%p: p, %q: q) returning add(%p, %p) when `ret` is `p`, else %p converted to `ret`.
std::string fold(const std::string& head, const std::string& result, const std::string& p,
                 const std::string& q, const std::string& ret) {
  const std::string op = ret == p ? "\"stablehlo.add\"(%p, %p) : (" + p + ", " + p + ") -> " + ret
                                  : "\"stablehlo.convert\"(%p) : (" + p + ") -> " + ret;
  return "func.func @main(%x: tensor<4xf32>, %z: tensor<f32>) -> " + result + " {\n  %r = " + head +
         " ({\n  ^bb0(%p: " + p + ", %q: " + q + "):\n    %s = " + op +
         "\n    \"stablehlo.return\"(%s) : (" + ret + ") -> ()\n  }) " +
         "{dimensions = array<i64: 0>, window_dimensions = array<i64: 2>} : "
         "(tensor<4xf32>, tensor<f32>) -> " +
         result + "\n  return %r : " + result + "\n}\n";
}

TEST(ResultTypes, ReduceAndReduceWindowResultsHaveTheInitElementType) {
  const std::string f = "tensor<f32>";
  EXPECT_EQ(compile_error(fold("\"stablehlo.reduce\"(%x, %z)", "tensor<f32>", f, f, f)), "");
  EXPECT_EQ(compile_error(fold("\"stablehlo.reduce\"(%x, %z)", "tensor<f64>", f, f, f)),
            "2:8: 'stablehlo.reduce' result type tensor<f64> should be tensor<f32>");
  EXPECT_EQ(compile_error(fold("\"stablehlo.reduce_window\"(%x, %z)", "tensor<3xf32>", f, f, f)),
            "");
  EXPECT_EQ(compile_error(fold("\"stablehlo.reduce_window\"(%x, %z)", "tensor<3xi32>", f, f, f)),
            "2:8: 'stablehlo.reduce_window' result type tensor<3xi32> should be tensor<3xf32>");
}

TEST(RegionSignatures, ReduceBodiesTakeAndReturnWhatTheKernelPasses) {
  const std::string f = "tensor<f32>";
  const std::string big = "tensor<50000000xf32>";
  for (const char* head : {"\"stablehlo.reduce\"(%x, %z)", "\"stablehlo.reduce_window\"(%x, %z)"}) {
    const std::string name = std::string(head).substr(1, std::string(head).find('"', 1) - 1);
    const std::string result = name == "stablehlo.reduce" ? "tensor<f32>" : "tensor<3xf32>";
    const std::string at = name == "stablehlo.reduce" ? "2:36" : "2:43";
    EXPECT_EQ(compile_error(fold(head, result, big, big, big)),
              at + ": region of '" + name + "' takes (" + big + ", " + big +
                  ") but should take (tensor<f32>, tensor<f32>)")
        << name;
    EXPECT_EQ(compile_error(fold(head, result, f, f, "tensor<f64>")),
              "5:5: region of '" + name + "' returns (tensor<f64>) but should return (tensor<f32>)")
        << name;
  }
}

// A reduce of f64 inputs into an f32 accumulator: the body receives (f32 accumulator, f64
// element), which is what the kernel passes.
std::string mixed_reduce(const std::string& element) {
  const std::string body = element == "tensor<f64>"
                               ? "    %c = stablehlo.convert %q : (tensor<f64>) -> tensor<f32>\n"
                               : "    %c = stablehlo.add %q, %q : tensor<f32>\n";
  return "func.func @main(%x: tensor<3xf64>) -> tensor<f32> {\n"
         "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %r = \"stablehlo.reduce\"(%x, %z) ({\n"
         "  ^bb0(%p: tensor<f32>, %q: " +
         element + "):\n" + body +
         "    %s = stablehlo.add %p, %c : tensor<f32>\n"
         "    stablehlo.return %s : tensor<f32>\n"
         "  }) {dimensions = array<i64: 0>} : (tensor<3xf64>, tensor<f32>) -> tensor<f32>\n"
         "  return %r : tensor<f32>\n}\n";
}

TEST(RegionSignatures, ReduceElementsKeepTheInputElementType) {
  // 1.5 + 2.5 + 3 = 7, each element converted to f32 inside the body.
  const auto out = run(mixed_reduce("tensor<f64>"), {testing::f64({3}, {1.5, 2.5, 3})});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{7}));
  EXPECT_EQ(compile_error(mixed_reduce("tensor<f32>")),
            "3:36: region of 'stablehlo.reduce' takes (tensor<f32>, tensor<f32>) but should take "
            "(tensor<f32>, tensor<f64>)");
}

// A sort of %x: tensor<4xf32> (and %y: tensor<4xi32> when `two`) by a comparator taking `args`
// (each "%name: type") and returning compare(%p, %q) on `elem`, or a constant of type `ret`
// when that is not tensor<i1> or when there is no %p.
std::string sort(const std::string& args, const std::string& ret, bool two = false,
                 const std::string& elem = "tensor<f32>") {
  const std::string operands = two ? "%x, %y" : "%x";
  const std::string types = two ? "tensor<4xf32>, tensor<4xi32>" : "tensor<4xf32>";
  const std::string cmp = args.find("%q") == std::string::npos ? "%p, %p" : "%p, %q";
  const std::string pick = elem == "tensor<f32>" ? "tensor<i1>" : "tensor<50000000xi1>";
  const std::string body =
      args.find("%p") == std::string::npos || ret != "tensor<i1>"
          ? "    %s = stablehlo.constant dense<true> : " + ret + "\n"
          : "    %s = \"stablehlo.compare\"(" + cmp +
                ") {comparison_direction = #stablehlo<comparison_direction LT>} : (" + elem + ", " +
                elem + ") -> " + pick + "\n";
  const std::string returned = ret == "tensor<i1>" ? pick : ret;
  return "func.func @main(%x: tensor<4xf32>, %y: tensor<4xi32>) -> tensor<4xf32> {\n"
         "  %r" +
         std::string(two ? ":2" : "") + " = \"stablehlo.sort\"(" + operands + ") ({\n  ^bb0(" +
         args + "):\n" + body + "    \"stablehlo.return\"(%s) : (" + returned +
         ") -> ()\n  }) {dimension = 0 : i64} : (" + types + ") -> (" + types +
         ")\n"
         "  return %r" +
         std::string(two ? "#0" : "") + " : tensor<4xf32>\n}\n";
}

TEST(RegionSignatures, SortComparatorsTakeTwoElementsPerOperandAndReturnAPredicate) {
  const std::string two_f32 = "%p: tensor<f32>, %q: tensor<f32>";
  EXPECT_EQ(compile_error(sort(two_f32, "tensor<i1>")), "");
  // The reported comparators: one argument (returned the input unchanged), none (a scramble),
  // 50,000,000-element arguments (silently given scalars).
  EXPECT_EQ(compile_error(sort("%p: tensor<f32>", "tensor<i1>")),
            "2:30: region of 'stablehlo.sort' takes (tensor<f32>) but should take (tensor<f32>, "
            "tensor<f32>)");
  EXPECT_EQ(compile_error(sort("", "tensor<i1>")),
            "2:30: region of 'stablehlo.sort' takes () but should take (tensor<f32>, "
            "tensor<f32>)");
  EXPECT_EQ(compile_error(sort("%p: tensor<50000000xf32>, %q: tensor<50000000xf32>", "tensor<i1>",
                               false, "tensor<50000000xf32>")),
            "2:30: region of 'stablehlo.sort' takes (tensor<50000000xf32>, tensor<50000000xf32>) "
            "but should take (tensor<f32>, tensor<f32>)");
  EXPECT_EQ(compile_error(sort(two_f32, "tensor<2xi1>")),
            "5:5: region of 'stablehlo.sort' returns (tensor<2xi1>) but should return "
            "(tensor<i1>)");
  // Two operands: four arguments, two of each operand's element type, in operand order.
  EXPECT_EQ(compile_error(sort(two_f32, "tensor<i1>", true)),
            "2:36: region of 'stablehlo.sort' takes (tensor<f32>, tensor<f32>) but should take "
            "(tensor<f32>, tensor<f32>, tensor<i32>, tensor<i32>)");
  EXPECT_EQ(compile_error(sort(two_f32 + ", %u: tensor<i32>, %v: tensor<i32>", "tensor<i1>", true)),
            "");
}

// A scatter adding %u into %x: tensor<4xi32> at [[1], [3]], body (%p: p, %q: q) -> ret.
std::string scatter(const std::string& p, const std::string& q, const std::string& ret) {
  return "func.func @main(%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<2xi32>) -> "
         "tensor<4xi32> {\n  %r = \"stablehlo.scatter\"(%x, %i, %u) ({\n  ^bb0(%p: " +
         p + ", %q: " + q + "):\n    stablehlo.return %p : " + ret +
         "\n  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], "
         "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} "
         ": (tensor<4xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<4xi32>\n"
         "  return %r : tensor<4xi32>\n}\n";
}

TEST(RegionSignatures, ScatterBodiesTakeTheCurrentValueAndTheUpdate) {
  EXPECT_EQ(compile_error(scatter("tensor<i32>", "tensor<i32>", "tensor<i32>")), "");
  EXPECT_EQ(compile_error(scatter("tensor<f32>", "tensor<f32>", "tensor<f32>")),
            "2:41: region of 'stablehlo.scatter' takes (tensor<f32>, tensor<f32>) but should take "
            "(tensor<i32>, tensor<i32>)");
  EXPECT_EQ(compile_error(scatter("tensor<i32>", "tensor<2xi32>", "tensor<i32>")),
            "2:41: region of 'stablehlo.scatter' takes (tensor<i32>, tensor<2xi32>) but should "
            "take (tensor<i32>, tensor<i32>)");
}

// A select_and_scatter over %x: tensor<4xf32> with source %s: `source`, init %z: tensor<f32>
// and windows of 2 at stride 2; select (%a, %b: sel) returns a compare of type `pick`; scatter
// (%c: scat, %d: scat) returns %c.
std::string select_scatter(const std::string& source, const std::string& sel,
                           const std::string& pick, const std::string& scat,
                           const std::string& result = "tensor<4xf32>") {
  return "func.func @main(%x: tensor<4xf32>, %s: " + source + ", %z: tensor<f32>) -> " + result +
         " {\n  %r = \"stablehlo.select_and_scatter\"(%x, %s, %z) ({\n  ^bb0(%a: " + sel +
         ", %b: " + sel + "):\n    %c = " +
         (pick == "tensor<f32>" ? "stablehlo.constant dense<1.0> : tensor<f32>"
                                : "\"stablehlo.compare\"(%a, %b) {comparison_direction = "
                                  "#stablehlo<comparison_direction GE>} : (" +
                                      sel + ", " + sel + ") -> " + pick) +
         "\n    stablehlo.return %c : " + pick + "\n  }, {\n  ^bb0(%c: " + scat + ", %d: " + scat +
         "):\n    stablehlo.return %c : " + scat +
         "\n  }) {window_dimensions = array<i64: 2>, "
         "window_strides = array<i64: 2>} : (tensor<4xf32>, " +
         source + ", tensor<f32>) -> " + result + "\n  return %r : " + result + "\n}\n";
}

TEST(RegionSignatures, SelectAndScatterRegionsAndShapesAreCheckedAtCompileTime) {
  const std::string f = "tensor<f32>", two = "tensor<2xf32>";
  EXPECT_EQ(compile_error(select_scatter(two, f, "tensor<i1>", f)), "");
  EXPECT_EQ(compile_error(select_scatter("tensor<3xf32>", f, "tensor<i1>", f)),
            "2:8: 'stablehlo.select_and_scatter' source tensor<3xf32> should have shape (2), one "
            "element per window");
  EXPECT_EQ(compile_error(select_scatter(two, f, "tensor<i1>", f, "tensor<4xf64>")),
            "2:8: 'stablehlo.select_and_scatter' result type tensor<4xf64> should be "
            "tensor<4xf32>");
  EXPECT_EQ(compile_error(select_scatter(two, "tensor<50000000xf32>", "tensor<50000000xi1>", f)),
            "2:52: region of 'stablehlo.select_and_scatter' takes (tensor<50000000xf32>, "
            "tensor<50000000xf32>) but should take (tensor<f32>, tensor<f32>)");
  EXPECT_EQ(compile_error(select_scatter(two, f, "tensor<f32>", f)),
            "5:5: region of 'stablehlo.select_and_scatter' returns (tensor<f32>) but should "
            "return (tensor<i1>)");
  EXPECT_EQ(compile_error(select_scatter(two, f, "tensor<i1>", "tensor<i32>")),
            "6:6: region of 'stablehlo.select_and_scatter' takes (tensor<i32>, tensor<i32>) but "
            "should take (tensor<f32>, tensor<f32>)");
}

}  // namespace
}  // namespace ndbuf::program
