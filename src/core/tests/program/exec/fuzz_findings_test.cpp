// Inputs program_exec_fuzz found, as regression tests (each crashed or hit undefined behaviour).
#include <gtest/gtest.h>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

TEST(ProgramFuzzFindings, PadWhoseInteriorPaddingOverflowsTheShapeIsAnError) {
  // (2^32 - 2) * 2^32 does not fit in 64 bits: the size computation overflowed (UBSan).
  EXPECT_EQ(
      testing::compile_error(
          "func.func @main(%a0: tensor<4294967295xf32>, %a1: tensor<f32>) -> tensor<0xf32> {\n"
          "  %r0 = \"stablehlo.pad\"(%a0, %a1) {edge_padding_low = array<i64: 3>, "
          "edge_padding_high = array<i64: 0>, interior_padding = array<i64: 4294967296>} : "
          "(tensor<4294967295xf32>, tensor<f32>) -> tensor<0xf32>\n"
          "  return %r0 : tensor<0xf32>\n}\n"),
      "2:9: 'stablehlo.pad' padding makes axis 0 larger than a 64-bit integer can hold");
  // An ordinary interior padding still compiles: 3 + 2 * 2 = 7.
  EXPECT_EQ(testing::compile_error(
                "func.func @main(%a0: tensor<3xf32>, %a1: tensor<f32>) -> tensor<7xf32> {\n"
                "  %r0 = \"stablehlo.pad\"(%a0, %a1) {edge_padding_low = array<i64: 0>, "
                "edge_padding_high = array<i64: 0>, interior_padding = array<i64: 2>} : "
                "(tensor<3xf32>, tensor<f32>) -> tensor<7xf32>\n"
                "  return %r0 : tensor<7xf32>\n}\n"),
            "");
}

}  // namespace
}  // namespace ndbuf::program
