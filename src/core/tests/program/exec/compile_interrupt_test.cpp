// Ctrl-C during compiles and long executions: the lexer, the verifier, the planner,
// dense literals and the interpreter poll the installed interrupt poll, and the error that
// stops them is the Interrupted one, not a compile error with a location.
#include <gtest/gtest.h>

#include <string>

#include "ndbuf/memory/parallel.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

// A fake user interrupt: answers true from its `g_fire_at`-th call on.
int g_polls = 0;
int g_fire_at = 0;
bool fake_poll() { return ++g_polls >= g_fire_at; }

class ProgramInterrupts : public ::testing::Test {
 protected:
  void SetUp() override { g_polls = 0; }
  void TearDown() override { set_interrupt_poll(nullptr); }
  // The kind and message of what compiling (and, when `execute_too`, running) `text` throws
  // with a poll that fires at its `fire_at`-th call.
  static std::string interrupted(const std::string& text, int fire_at, bool execute_too) {
    g_fire_at = fire_at;
    set_interrupt_poll(&fake_poll);
    try {
      const auto exe = compile(text);
      if (execute_too) execute(*exe, {});
    } catch (const Error& e) {
      return std::string(e.kind() == ErrorKind::kInterrupted ? "interrupted: " : "other: ") +
             e.what();
    }
    return "completed";
  }
};

// `n` additions in a row: about 10 tokens each.
std::string long_program(int n) {
  std::string text =
      "func.func @main() -> tensor<f32> {\n%v0 = stablehlo.constant dense<1.0> : "
      "tensor<f32>\n";
  for (int k = 1; k <= n; ++k) {
    text += "%v" + std::to_string(k) + " = stablehlo.add %v" + std::to_string(k - 1) +
            ", %v0 : " + "tensor<f32>\n";
  }
  return text + "return %v" + std::to_string(n) + " : tensor<f32>\n}\n";
}

TEST_F(ProgramInterrupts, ALongProgramTextStopsAtTheLexersPoll) {
  // 100,000 ops, over a million tokens: the lexer polls every 2^16 tokens.
  const std::string text = long_program(100000);
  EXPECT_EQ(interrupted(text, 3, false), "interrupted: Interrupted by the user.");
  EXPECT_EQ(g_polls, 3);  // it stopped at the poll that fired
  // Without an interrupt the same text compiles (and the polls kept going: over 15 of them).
  g_polls = 0;
  EXPECT_EQ(interrupted(text, 1 << 30, false), "completed");
  EXPECT_GT(g_polls, 15);
}

TEST_F(ProgramInterrupts, TheVerifierAndPlannerPollToo) {
  // A poll that fires after the lexer's polls of this text: the verifier's or the planner's
  // polls (every 2^14 and 2^12 ops) see it before the compile ends.
  const std::string text = long_program(100000);
  g_polls = 0;
  set_interrupt_poll(&fake_poll);
  g_fire_at = 1 << 30;
  (void)compile(text);
  const int all_polls = g_polls;
  g_polls = 0;
  const int lexer_polls = 1000000 / 65536;  // at least this many come from the lexer
  EXPECT_GT(all_polls, lexer_polls + 20);
  EXPECT_EQ(interrupted(text, all_polls, false), "interrupted: Interrupted by the user.");
}

TEST_F(ProgramInterrupts, ALargeDenseLiteralStopsWhileItIsMaterialised) {
  // 2^18 values: the lexer polls 4 times in the list, materialising polls 4 times more.
  std::string values;
  for (int k = 0; k < (1 << 18); ++k) values += (k ? "," : "") + std::to_string(k % 7);
  const std::string text =
      "func.func @main() -> tensor<262144xi32> {\n"
      "%c = stablehlo.constant dense<[" +
      values + "]> : tensor<262144xi32>\nreturn %c : tensor<262144xi32>\n}\n";
  g_fire_at = 1 << 30;
  set_interrupt_poll(&fake_poll);
  (void)compile(text);
  const int polls = g_polls;
  EXPECT_GE(polls, 8);
  g_polls = 0;
  EXPECT_EQ(interrupted(text, polls, false), "interrupted: Interrupted by the user.");
}

TEST_F(ProgramInterrupts, AnEndlessWhileLoopStopsAtTheInterpretersPoll) {
  const std::string text =
      "func.func @main() -> tensor<i64> {\n"
      "  %z = stablehlo.constant dense<0> : tensor<i64>\n"
      "  %one = stablehlo.constant dense<1> : tensor<i64>\n"
      "  %r = stablehlo.while(%i = %z) : tensor<i64>\n"
      "  cond {\n"
      "    %c = stablehlo.compare GE, %i, %z : (tensor<i64>, tensor<i64>) -> tensor<i1>\n"
      "    stablehlo.return %c : tensor<i1>\n"
      "  } do {\n"
      "    %n = stablehlo.add %i, %one : tensor<i64>\n"
      "    stablehlo.return %n : tensor<i64>\n"
      "  }\n"
      "  return %r : tensor<i64>\n}\n";
  EXPECT_EQ(interrupted(text, 5, true), "interrupted: Interrupted by the user.");
  EXPECT_EQ(g_polls, 5);
}

}  // namespace
}  // namespace ndbuf::program
