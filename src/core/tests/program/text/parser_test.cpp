// The program text front end: both op syntaxes, modules, locations, types, attributes.
#include "program/text/parser.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::values;

const Op& first_op(const Module& m) { return m.functions.at(0).body.ops.at(0); }

TEST(ProgramParser, PrettyAndGenericFormsGiveTheSameOp) {
  const Module pretty = parse_program(
      "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n");
  const Module generic = parse_program(
      "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = \"stablehlo.add\"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
      "  \"func.return\"(%0) : (tensor<2xf32>) -> ()\n}\n");
  for (const Module* m : {&pretty, &generic}) {
    const Op& op = first_op(*m);
    EXPECT_EQ(op.name, "stablehlo.add");
    EXPECT_EQ(op.operands, (std::vector<int>{0, 1}));
    EXPECT_EQ(types_to_string(op.operand_types), "tensor<2xf32>, tensor<2xf32>");
    EXPECT_EQ(types_to_string(op.result_types), "tensor<2xf32>");
    EXPECT_EQ(m->functions[0].body.ops.back().name, "return");
  }
}

TEST(ProgramParser, ModulesLocationsCommentsAndAttributesAreAccepted) {
  const std::string text =
      "#loc1 = loc(\"f.py\":3:4)\n"
      "module @jit_f attributes {mhlo.num_partitions = 1 : i32, jax.uses_shape_polymorphism = "
      "false} {\n"
      "  // a comment\n"
      "  func.func public @main (%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32} loc(\"x\"), "
      "%arg1: tensor<f32> {mhlo.sharding = \"{replicated}\"}) -> (tensor<3xf32> {jax.result_info = "
      "\"\"}) {\n"
      "    %0 = call @helper(%arg0, %arg1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32> "
      "loc(#loc1)\n"
      "    return %0 : tensor<3xf32> loc(#loc1)\n"
      "  } loc(#loc1)\n"
      "  func.func private @helper(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {\n"
      "    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3xf32>\n"
      "    %0 = stablehlo.multiply %x, %b : tensor<3xf32>\n"
      "    func.return %0 : tensor<3xf32>\n"
      "  }\n"
      "} loc(#loc1)\n";
  auto e = compile(text);
  EXPECT_EQ(signature_to_string(signature(*e)), "(tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>)");
  EXPECT_EQ(signature(*e).aliasing_output[0], std::optional<int>(0));
  EXPECT_EQ(signature(*e).aliasing_output[1], std::nullopt);
  const auto out = execute(*e, {testing::f32({3}, {1, 2, 3}), testing::f32({}, {2})});
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 4, 6}));
}

TEST(ProgramParser, EveryElementTypeParses) {
  const std::vector<std::pair<std::string, DType>> cases = {
      {"i1", DType::kPred},           {"i8", DType::kI8},
      {"i16", DType::kI16},           {"i32", DType::kI32},
      {"i64", DType::kI64},           {"ui8", DType::kU8},
      {"ui16", DType::kU16},          {"ui32", DType::kU32},
      {"ui64", DType::kU64},          {"f16", DType::kF16},
      {"bf16", DType::kBF16},         {"f32", DType::kF32},
      {"f64", DType::kF64},           {"complex<f32>", DType::kC64},
      {"complex<f64>", DType::kC128},
  };
  for (const auto& [name, dtype] : cases) {
    const std::string t = "tensor<0x2x" + name + ">";
    const Module m =
        parse_program("func.func @main(%a: " + t + ") -> " + t + " {\n  return %a : " + t + "\n}");
    const Type& type = m.functions[0].body.arg_types[0];
    EXPECT_EQ(type.dtype, dtype) << name;
    EXPECT_EQ(type.shape, (Shape{0, 2})) << name;
    EXPECT_EQ(type_to_string(type), t);
  }
}

TEST(ProgramParser, DenseLiteralsOfEveryForm) {
  const auto out = testing::run(
      "func.func @main() -> (tensor<2x2xi32>, tensor<3xf32>, tensor<0xf32>, tensor<2xi1>, "
      "tensor<2xf32>, "
      "tensor<complex<f64>>, tensor<2xi16>, tensor<bf16>) {\n"
      "  %0 = stablehlo.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>\n"
      "  %1 = stablehlo.constant dense<1.5> : tensor<3xf32>\n"
      "  %2 = stablehlo.constant dense<> : tensor<0xf32>\n"
      "  %3 = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
      "  %4 = stablehlo.constant dense<[0x7FC00000, -2.5e+01]> : tensor<2xf32>\n"
      "  %5 = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f64>>\n"
      "  %6 = stablehlo.constant dense<\"0x0100FFFF\"> : tensor<2xi16>\n"
      "  %7 = stablehlo.constant dense<0x3FC0> : tensor<bf16>\n"
      "  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x2xi32>, tensor<3xf32>, tensor<0xf32>, "
      "tensor<2xi1>, tensor<2xf32>, tensor<complex<f64>>, tensor<2xi16>, tensor<bf16>\n}\n");
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, -2, 3, 4}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1.5f, 1.5f, 1.5f}));
  EXPECT_EQ(out[2].numel(), 0);
  EXPECT_EQ(values<uint8_t>(out[3]), (std::vector<uint8_t>{1, 0}));
  EXPECT_TRUE(std::isnan(values<float>(out[4])[0]));
  EXPECT_EQ(values<float>(out[4])[1], -25.0f);
  EXPECT_EQ(values<std::complex<double>>(out[5])[0], std::complex<double>(1.0, -2.0));
  EXPECT_EQ(values<int16_t>(out[6]), (std::vector<int16_t>{1, -1}));    // little-endian bytes
  EXPECT_EQ(testing::half_values(out[7]), (std::vector<double>{1.5}));  // 0x3FC0 = 1.5 in bf16
}

TEST(ProgramParser, StructuredEnumAndArrayAttributes) {
  const Module m = parse_program(
      "func.func @main(%a: tensor<2x3xf32>, %i: tensor<1x1xi64>) -> tensor<1x3xf32> {\n"
      "  %0 = \"stablehlo.gather\"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = "
      "[1], "
      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
      "slice_sizes = array<i64: 1, 3>, indices_are_sorted = false} : "
      "(tensor<2x3xf32>, tensor<1x1xi64>) -> tensor<1x3xf32>\n"
      "  %1 = \"stablehlo.compare\"(%0, %0) {comparison_direction = "
      "#stablehlo<comparison_direction LT>} "
      ": (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xi1>\n"
      "  return %0 : tensor<1x3xf32>\n}\n");
  const Op& gather = first_op(m);
  const Attribute* numbers = find_attr(gather.attrs, "dimension_numbers");
  ASSERT_NE(numbers, nullptr);
  EXPECT_EQ(numbers->kind, Attribute::Kind::kStruct);
  EXPECT_EQ(numbers->field("offset_dims")->ints, (std::vector<int64_t>{1}));
  EXPECT_EQ(numbers->field("index_vector_dim")->integer, 1);
  EXPECT_EQ(find_attr(gather.attrs, "slice_sizes")->ints, (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(find_attr(gather.attrs, "indices_are_sorted")->flag);
  const Attribute* dir = find_attr(m.functions[0].body.ops[1].attrs, "comparison_direction");
  EXPECT_EQ(dir->kind, Attribute::Kind::kEnum);
  EXPECT_EQ(dir->name, "comparison_direction");
  EXPECT_EQ(dir->text, "LT");
}

TEST(ProgramParser, PrettyFormsMapToGenericAttributeNames) {
  const Module m = parse_program(
      "func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<3x2xf32> {\n"
      "  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
      "  %1 = stablehlo.compare  GE, %a, %a,  TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
      "tensor<2x3xi1>\n"
      "  %2 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x "
      "[1], "
      "precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>\n"
      "  %3 = stablehlo.slice %a [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>\n"
      "  %4 = stablehlo.reduce_precision %a, format = e5m10 : tensor<2x3xf32>\n"
      "  return %0 : tensor<3x2xf32>\n}\n");
  const auto& ops = m.functions[0].body.ops;
  EXPECT_EQ(find_attr(ops[0].attrs, "permutation")->ints, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(find_attr(ops[1].attrs, "comparison_direction")->text, "GE");
  EXPECT_EQ(find_attr(ops[1].attrs, "compare_type")->text, "TOTALORDER");
  const Attribute* dot = find_attr(ops[2].attrs, "dot_dimension_numbers");
  EXPECT_EQ(dot->field("lhs_batching_dimensions")->ints, (std::vector<int64_t>{0}));
  EXPECT_EQ(dot->field("rhs_contracting_dimensions")->ints, (std::vector<int64_t>{1}));
  EXPECT_EQ(find_attr(ops[3].attrs, "start_indices")->ints, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(find_attr(ops[3].attrs, "limit_indices")->ints, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(find_attr(ops[3].attrs, "strides")->ints, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(find_attr(ops[4].attrs, "exponent_bits")->integer, 5);
  EXPECT_EQ(find_attr(ops[4].attrs, "mantissa_bits")->integer, 10);
}

TEST(ProgramParser, MultiResultValues) {
  const auto out = testing::run(
      "func.func @main() -> (tensor<i32>, tensor<i32>) {\n"
      "  %c = stablehlo.constant dense<7> : tensor<i32>\n"
      "  %d = stablehlo.constant dense<9> : tensor<i32>\n"
      "  %r:2 = stablehlo.optimization_barrier %c, %d : tensor<i32>, tensor<i32>\n"
      "  %x, %y = stablehlo.optimization_barrier %r#1, %r#0 : tensor<i32>, tensor<i32>\n"
      "  return %x, %y : tensor<i32>, tensor<i32>\n}\n");
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{9}));
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{7}));
}

// As in MLIR, a group of one result is named with or without its index: `%s:1 = ...` and
// `%t = ...` both define values that `%s#0` / `%t#0` use; a larger index stays undefined.
TEST(ProgramParser, ResultGroupOfOne) {
  const auto out = testing::run(
      "func.func @main() -> (tensor<i32>, tensor<i32>) {\n"
      "  %s:1 = stablehlo.constant dense<4> : tensor<i32>\n"
      "  %t = stablehlo.add %s#0, %s : tensor<i32>\n"
      "  return %t#0, %s#0 : tensor<i32>, tensor<i32>\n}\n");
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{8}));
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{4}));
  EXPECT_EQ(testing::compile_error("func.func @main() -> tensor<i32> {\n"
                                   "  %s:1 = stablehlo.constant dense<4> : tensor<i32>\n"
                                   "  return %s#1 : tensor<i32>\n}\n"),
            "3:10: use of undefined value '%s#1'");
}

}  // namespace
}  // namespace ndbuf::program
