// Compile time is linear in program size: large programs compile, and doubling a program's
// size roughly doubles its compile time.
#include <gtest/gtest.h>

#include <chrono>

#include "program_test_util.hpp"

namespace ndbuf::program {
namespace {

// A chain of `ops` element-wise ops on a 4-element f32 vector: x, x + x, (x + x) * x, ...
std::string chain_program(int ops) {
  std::string text = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n";
  std::string last = "%x";
  for (int k = 0; k < ops; ++k) {
    const std::string name = "%v" + std::to_string(k);
    text += "  " + name + " = stablehlo." + (k % 2 == 0 ? "add " : "multiply ") + last +
            ", %x : tensor<4xf32>\n";
    last = name;
  }
  return text + "  return " + last + " : tensor<4xf32>\n}\n";
}

double compile_seconds(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  compile(text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(ProgramScale, TenThousandOpsCompileAndRun) {
  // x = 1: add then multiply by 1 alternately adds 1 every second op: 1 + 5000 = 5001.
  const auto out = testing::run(chain_program(10000), {testing::f32({4}, {1, 1, 1, 1})});
  EXPECT_EQ(testing::values<float>(out[0]), (std::vector<float>{5001, 5001, 5001, 5001}));
}

TEST(ProgramScale, CompileTimeIsLinear) {
  const std::string small = chain_program(4000);
  const std::string large = chain_program(32000);
  compile_seconds(small);  // warm-up
  double best_small = 1e9, best_large = 1e9;
  for (int round = 0; round < 3; ++round) {
    best_small = std::min(best_small, compile_seconds(small));
    best_large = std::min(best_large, compile_seconds(large));
  }
  // 8x the ops: linear is ~8x; quadratic would be ~64x. The bound is generous for noisy hosts.
  EXPECT_LT(best_large / best_small, 24.0) << best_small << " s vs " << best_large << " s";
}

}  // namespace
}  // namespace ndbuf::program
