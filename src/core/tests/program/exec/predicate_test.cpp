// Booleans (i1) from every producer in programs are the bytes 0 and 1: hex and list
// literals, convert, bitcast_convert, compare, select, reduce and dot_general; iota on i1 is
// refused as the spec refuses it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::run;

// The bytes of a pred tensor in row-major order.
std::vector<uint8_t> bytes(const Tensor& t) {
  const Tensor dense = make_dense(t, Order::kRowMajor);
  const auto* p = static_cast<const uint8_t*>(dense.data());
  return std::vector<uint8_t>(p, p + dense.numel());
}

std::string constant_program(const std::string& literal, const std::string& type) {
  return "func.func @main() -> " + type + " {\n  %r = stablehlo.constant " + literal + " : " +
         type + "\n  return %r : " + type + "\n}\n";
}

TEST(ProgramPredicates, HexLiteralsReadAnyNonZeroByteAsTrue) {
  const auto out = run(constant_program("dense<\"0x00010280FF\">", "tensor<5xi1>"));
  EXPECT_EQ(bytes(out[0]), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  // One byte for every element (a splat), as MLIR writes a splat of true.
  const auto splat = run(constant_program("dense<\"0xFF\">", "tensor<3xi1>"));
  EXPECT_EQ(bytes(splat[0]), (std::vector<uint8_t>{1, 1, 1}));
  const auto zero = run(constant_program("dense<\"0x00\">", "tensor<2xi1>"));
  EXPECT_EQ(bytes(zero[0]), (std::vector<uint8_t>{0, 0}));
}

TEST(ProgramPredicates, ComparingAHexBooleanWithTrueFindsItTrue) {
  // Byte 2 used to stay 2, and 2 == 1 is false.
  const auto out =
      run("func.func @main() -> tensor<3xi1> {\n"
          "  %a = stablehlo.constant dense<\"0x020001\"> : tensor<3xi1>\n"
          "  %t = stablehlo.constant dense<true> : tensor<3xi1>\n"
          "  %r = stablehlo.compare EQ, %a, %t : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>\n"
          "  return %r : tensor<3xi1>\n}\n");
  EXPECT_EQ(bytes(out[0]), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(ProgramPredicates, ListLiteralsOutsideZeroAndOneAreErrors) {
  EXPECT_EQ(testing::compile_error(constant_program("dense<[1, 2]>", "tensor<2xi1>")),
            "2:37: value '2' does not fit in i1");
}

TEST(ProgramPredicates, IotaOnI1IsACompileError) {
  EXPECT_EQ(testing::compile_error("func.func @main() -> tensor<4xi1> {\n"
                                   "  %r = stablehlo.iota dim = 0 : tensor<4xi1>\n"
                                   "  return %r : tensor<4xi1>\n}\n"),
            "2:8: 'stablehlo.iota' needs an integer, floating-point or complex result type, not "
            "tensor<4xi1>");
}

TEST(ProgramPredicates, ConvertBitcastSelectReduceAndDotGiveZeroOrOne) {
  const auto out =
      run("func.func @main(%x: tensor<4xf32>, %u: tensor<ui8>) -> (tensor<4xi1>, tensor<8xi1>, "
          "tensor<4xi1>, tensor<i1>, tensor<i1>) {\n"
          "  %c = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi1>\n"
          "  %b = \"stablehlo.bitcast_convert\"(%u) : (tensor<ui8>) -> tensor<8xi1>\n"
          "  %h = stablehlo.constant dense<\"0x00030004\"> : tensor<4xi1>\n"
          "  %s = stablehlo.select %c, %h, %c : tensor<4xi1>, tensor<4xi1>\n"
          "  %f = stablehlo.constant dense<false> : tensor<i1>\n"
          "  %r = stablehlo.reduce(%h init: %f) across dimensions = [0] : (tensor<4xi1>, "
          "tensor<i1>) -> tensor<i1>\n"
          "   reducer(%p: tensor<i1>, %q: tensor<i1>) {\n"
          "    %n = stablehlo.not %p : tensor<i1>\n"
          "    %o = stablehlo.or %n, %q : tensor<i1>\n"
          "    %m = stablehlo.not %o : tensor<i1>\n"
          "    %z = stablehlo.or %m, %q : tensor<i1>\n"
          "    stablehlo.return %z : tensor<i1>\n"
          "  }\n"
          "  %d = stablehlo.dot_general %h, %h, contracting_dims = [0] x [0] : "
          "(tensor<4xi1>, tensor<4xi1>) -> tensor<i1>\n"
          "  return %c, %b, %s, %r, %d : tensor<4xi1>, tensor<8xi1>, tensor<4xi1>, tensor<i1>, "
          "tensor<i1>\n}\n",
          {testing::f32({4}, {0, 2, -0.5f, 0}), testing::tensor_of<uint8_t>(DType::kU8, {}, {5})});
  EXPECT_EQ(bytes(out[0]), (std::vector<uint8_t>{0, 1, 1, 0}));              // x != 0
  EXPECT_EQ(bytes(out[1]), (std::vector<uint8_t>{1, 0, 1, 0, 0, 0, 0, 0}));  // bits of 5
  EXPECT_EQ(bytes(out[2]), (std::vector<uint8_t>{0, 1, 0, 0}));  // c ? h : c, h = 0 1 0 1
  // (not (not acc or q)) or q = (acc and not q) or q = acc or q: any of 0 1 0 1.
  EXPECT_EQ(bytes(out[3]), (std::vector<uint8_t>{1}));
  EXPECT_EQ(bytes(out[4]), (std::vector<uint8_t>{1}));  // OR of h AND h
}

}  // namespace
}  // namespace ndbuf::program
