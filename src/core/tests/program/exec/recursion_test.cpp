// The recursion budget of execution: calls and region nesting count together, so a recursive
// program is an error whatever mixes them, never a native stack overflow.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "program/exec/interpreter.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::run_error;

// @f(%p, %x): `depth` ifs on %p nested inside each other; the innermost calls `callee` with
// the same arguments and returns its result (the reported shape: recursion from deep inside
// nested regions, each call under `depth` regions).
std::string nested_call(const std::string& name, const std::string& callee, int depth) {
  std::string body = "%c = func.call @" + callee +
                     "(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>\n"
                     "stablehlo.return %c : tensor<i32>\n";
  for (int k = 0; k < depth; ++k) {
    body = "%r" + std::to_string(k) + " = \"stablehlo.if\"(%p) ({\n" + body +
           "}, {\nstablehlo.return %x : tensor<i32>\n}) : (tensor<i1>) -> tensor<i32>\n"
           "stablehlo.return %r" +
           std::to_string(k) + " : tensor<i32>\n";
  }
  const size_t last = body.rfind("stablehlo.return");
  return "func.func private @" + name + "(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {\n" +
         body.substr(0, last) + "return %r" + std::to_string(depth - 1) + " : tensor<i32>\n}\n";
}

std::string main_calling(const std::string& callee) {
  return "func.func @main(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {\n"
         "%0 = func.call @" +
         callee +
         "(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>\n"
         "return %0 : tensor<i32>\n}\n";
}

std::string budget_error(const std::string& function, int line) {
  return "calls and regions nested more than 512 deep (at @" + function + ", line " +
         std::to_string(line) + "): is the program recursive?";
}

TEST(ProgramRecursion, RecursionUnderDeepNestingIsAnErrorNotAStackOverflow) {
  // 160 ifs per call (the reported shape) and 250 ifs per call: both pass the 256-call and the
  // 256-nesting guards on their own; the budget stops them after 512 levels. With 160 ifs a
  // call takes 161 levels (its body and 160 ifs): after main's body and three calls, 1 + 3 * 161
  // = 484 levels are open; the fourth call's body is level 485 and its 28th if (counted from
  // the outside) level 513. That if is on line 2 + 27 of the text.
  const std::string text = nested_call("f", "f", 160) + main_calling("f");
  EXPECT_EQ(run_error(text, {testing::pred({}, {1}), testing::i32({}, {7})}),
            budget_error("f", 29));
  const std::string wide = nested_call("g", "g", 250) + main_calling("g");
  EXPECT_NE(run_error(wide, {testing::pred({}, {1}), testing::i32({}, {7})})
                .find("calls and regions nested more than 512 deep (at @g, line "),
            std::string::npos);
}

// Runs the reported program to the budget's error on a thread with a 2 MiB stack, a quarter
// of R's main thread's (and an eighth of the device queues' and many-device processes'
// threads): a level costs under 1 KiB of stack in a release build, so it has room twice over,
// and a level growing past 4 KiB kills this test instead of a user's session. ASan's redzones
// make frames larger (measured: the budget needs 3 MiB there, 4-6 KiB a level), so the
// sanitizer build gets 4 MiB: past 8 KiB a level it fails too.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NDBUF_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(NDBUF_TEST_ASAN)
#define NDBUF_TEST_ASAN 1
#endif
#ifndef NDBUF_TEST_ASAN
#define NDBUF_TEST_ASAN 0
#endif
constexpr size_t kTestStackBytes = size_t{NDBUF_TEST_ASAN ? 4 : 2} << 20;

void* run_to_the_budget(void* message) {
  const std::string text = nested_call("f", "f", 160) + main_calling("f");
  *static_cast<std::string*>(message) =
      run_error(text, {testing::pred({}, {1}), testing::i32({}, {7})});
  return nullptr;
}

TEST(ProgramRecursion, TheWholeBudgetFitsInASmallThreadStack) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kTestStackBytes), 0);
  std::string message;
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, &run_to_the_budget, &message), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(message, budget_error("f", 29));
}

TEST(ProgramRecursion, DeepButFiniteNestingAcrossCallsRuns) {
  // @a -> @b -> @c, 150 ifs each: 1 + 3 * 151 = 454 levels, inside the budget. With %p false
  // every if takes its else branch at once; with %p true @c's innermost region returns %x.
  std::string c = nested_call("c", "c", 150);
  c.replace(
      c.find("%c = func.call @c(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>\n"),
      std::string("%c = func.call @c(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>\n").size(),
      "%c = stablehlo.add %x, %x : tensor<i32>\n");
  const std::string text =
      nested_call("a", "b", 150) + nested_call("b", "c", 150) + c + main_calling("a");
  const auto out = testing::run(text, {testing::pred({}, {1}), testing::i32({}, {21})});
  EXPECT_EQ(testing::values<int32_t>(out[0]), (std::vector<int32_t>{42}));
}

TEST(ProgramRecursion, DirectRecursionKeepsTheCallMessage) {
  // One level per call: the 256-call guard answers first, with its own message.
  EXPECT_EQ(run_error(nested_call("f", "f", 1) + main_calling("f"),
                      {testing::pred({}, {1}), testing::i32({}, {7})}),
            "calls nested more than 256 deep (at @f): is the program recursive?");
}

TEST(ProgramRecursion, RegionBodiesKernelsCallBackCountToo) {
  // A reduce whose body (not a recognised pattern) calls @f, which nests 200 ifs and reduces
  // again: kernel callbacks are levels of the same budget.
  const std::string f =
      "func.func private @f(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {\n"
      "%v = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<i32>) -> tensor<2xi32>\n"
      "%r = stablehlo.reduce(%v init: %x) across dimensions = [0] : "
      "(tensor<2xi32>, tensor<i32>) -> tensor<i32>\n"
      " reducer(%a: tensor<i32>, %b: tensor<i32>) {\n"
      "  %c = func.call @g(%p, %a) : (tensor<i1>, tensor<i32>) -> tensor<i32>\n"
      "  stablehlo.return %c : tensor<i32>\n"
      " }\n"
      "return %r : tensor<i32>\n}\n";
  std::string g = nested_call("g", "f", 200);
  const std::string text = f + g + main_calling("f");
  const std::string error = run_error(text, {testing::pred({}, {1}), testing::i32({}, {1})});
  EXPECT_NE(error.find("calls and regions nested more than 512 deep (at @g, line "),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace ndbuf::program
