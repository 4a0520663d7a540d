// Tests of argmax-style reductions: the table recognise_arg_pick() reads from JAX's bodies (by
// hand), the bodies it refuses, and the native fold against a naive argmax and, bit for bit,
// against the same body run as an element program.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "program/ops/reduction/arg_body.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

std::string tensor_type(const Shape& shape, const std::string& dtype) {
  std::ostringstream s;
  s << "tensor<";
  for (int64_t d : shape) s << d << "x";
  s << dtype << ">";
  return s.str();
}

struct ArgProgram {
  Shape shape;
  int64_t dim = 1;
  std::string value = "f32", index = "i32";
  std::string direction = "GT";  // GT: argmax, LT: argmin
  bool disguised = false;        // index compare through an add of 0: no native kernel
};

// JAX's lowering of jnp.argmax / jnp.argmin: values and an iota along `dim` reduced together;
// returns both results.
std::string arg_program(const ArgProgram& p) {
  Shape kept = p.shape;
  kept.erase(kept.begin() + p.dim);
  const bool is_float = p.value[0] == 'f';
  const std::string v = "tensor<" + p.value + ">", i = "tensor<" + p.index + ">";
  const std::string init = !is_float ? (p.direction == "GT" ? "-1000000" : "1000000")
                                     : (p.direction == "GT" ? "0xFF800000" : "0x7F800000");
  const std::string init_value =
      p.value == "f64" ? (p.direction == "GT" ? "0xFFF0000000000000" : "0x7FF0000000000000") : init;
  const std::string cmp = is_float ? "FLOAT" : "SIGNED";
  const std::string b = p.disguised ? "%bb" : "%b";
  std::ostringstream s;
  s << "func.func @main(%x: " << tensor_type(p.shape, p.value) << ") -> ("
    << tensor_type(kept, p.value) << ", " << tensor_type(kept, p.index) << ") {\n"
    << "  %iota = stablehlo.iota dim = " << p.dim << " : " << tensor_type(p.shape, p.index) << "\n"
    << "  %init = stablehlo.constant dense<" << init_value << "> : " << v << "\n"
    << "  %zero = stablehlo.constant dense<0> : " << i << "\n"
    << "  %r:2 = \"stablehlo.reduce\"(%x, %iota, %init, %zero) ({\n"
    << "  ^bb0(%a: " << v << ", %b: " << i << ", %c: " << v << ", %d: " << i << "):\n"
    << "    %z = stablehlo.constant dense<0> : " << i << "\n"
    << "    %bb = stablehlo.add %b, %z : " << i << "\n"
    << "    %pick = stablehlo.compare " << p.direction << ", %a, %c, " << cmp << " : (" << v << ", "
    << v << ") -> tensor<i1>\n"
    << "    %nan = stablehlo.compare NE, %a, %a, " << cmp << " : (" << v << ", " << v
    << ") -> tensor<i1>\n"
    << "    %first = stablehlo.or %pick, %nan : tensor<i1>\n"
    << "    %eq = stablehlo.compare EQ, %a, %c, " << cmp << " : (" << v << ", " << v
    << ") -> tensor<i1>\n"
    << "    %lt = stablehlo.compare LT, " << b << ", %d, SIGNED : (" << i << ", " << i
    << ") -> tensor<i1>\n"
    << "    %tie = stablehlo.and %eq, %lt : tensor<i1>\n"
    << "    %keep = stablehlo.or %first, %tie : tensor<i1>\n"
    << "    %rv = stablehlo.select %first, %a, %c : tensor<i1>, " << v << "\n"
    << "    %ri = stablehlo.select %keep, " << b << ", %d : tensor<i1>, " << i << "\n"
    << "    stablehlo.return %rv, %ri : " << v << ", " << i << "\n"
    << "  }) {dimensions = array<i64: " << p.dim << ">} : (" << tensor_type(p.shape, p.value)
    << ", " << tensor_type(p.shape, p.index) << ", " << v << ", " << i << ") -> ("
    << tensor_type(kept, p.value) << ", " << tensor_type(kept, p.index) << ")\n"
    << "  return %r#0, %r#1 : " << tensor_type(kept, p.value) << ", " << tensor_type(kept, p.index)
    << "\n}\n";
  return s.str();
}

TEST(ArgPick, JaxArgmaxAndArgminByHand) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = f32({4, 4}, {1, nan, 3, nan,          // the first NaN wins
                                2, 7, 7, -1,             // ties: the lowest index
                                -inf, -inf, -inf, -inf,  // the init's own value
                                0, -0.0F, -0.0F, 0});    // zeros of either sign tie
  const auto max = run(arg_program({{4, 4}}), {x});
  EXPECT_EQ(values<int32_t>(max[1]), (std::vector<int32_t>{1, 1, 0, 0}));
  const auto min = run(arg_program({{4, 4}, 1, "f32", "i32", "LT"}), {x});
  EXPECT_EQ(values<int32_t>(min[1]), (std::vector<int32_t>{1, 3, 0, 0}));
  const std::vector<float> max_values = values<float>(max[0]);
  EXPECT_TRUE(std::isnan(max_values[0]));
  EXPECT_EQ(max_values[1], 7);
  EXPECT_EQ(max_values[2], -inf);
  // JAX's body takes the later of equal values: the last zero's sign.
  EXPECT_FALSE(std::signbit(max_values[3]));
}

// The tables of JAX's argmax body, worked out by hand from its selects: the value is taken from
// the element unless the accumulator is greater or NaN (value situations 2, 3, 5 keep it); the
// index also stays on a tie when the accumulator's index is lower (situation 1 with b < d).
TEST(ArgPick, TheTableOfJaxArgmax) {
  // Built directly: arguments (a, b, c, d), JAX's steps.
  ElementProgram p;
  p.arguments = {DType::kF32, DType::kI32, DType::kF32, DType::kI32};
  const auto arg = [&](int k) {
    ElementStep s;
    s.op = ElementOp::kArgument;
    s.argument = k;
    s.dtype = p.arguments[static_cast<size_t>(k)];
    p.steps.push_back(s);
    return static_cast<int32_t>(p.steps.size() - 1);
  };
  const auto step = [&](ElementOp op, DType dtype, std::array<int32_t, 3> operands) {
    ElementStep s;
    s.op = op;
    s.dtype = dtype;
    s.operands = operands;
    p.steps.push_back(s);
    return static_cast<int32_t>(p.steps.size() - 1);
  };
  const auto compare = [&](CompareDirection d, CompareType t, int32_t x, int32_t y) {
    const int32_t r = step(ElementOp::kCompare, DType::kPred, {x, y, -1});
    p.steps.back().direction = d;
    p.steps.back().compare_type = t;
    return r;
  };
  const auto logic = [&](BinaryOp op, int32_t x, int32_t y) {
    const int32_t r = step(ElementOp::kBinary, DType::kPred, {x, y, -1});
    p.steps.back().binary = op;
    return r;
  };
  const int32_t a = arg(0), b = arg(1), c = arg(2), d = arg(3);
  const int32_t greater = compare(CompareDirection::kGT, CompareType::kFloat, a, c);
  const int32_t nan = compare(CompareDirection::kNE, CompareType::kFloat, a, a);
  const int32_t first = logic(BinaryOp::kOr, greater, nan);
  const int32_t equal = compare(CompareDirection::kEQ, CompareType::kFloat, a, c);
  const int32_t lower = compare(CompareDirection::kLT, CompareType::kSigned, b, d);
  const int32_t tie = logic(BinaryOp::kAnd, equal, lower);
  const int32_t keep = logic(BinaryOp::kOr, first, tie);
  const int32_t value = step(ElementOp::kSelect, DType::kF32, {first, a, c});
  const int32_t index = step(ElementOp::kSelect, DType::kI32, {keep, b, d});
  p.results = {value, index};
  const auto table = recognise_arg_pick(p);
  ASSERT_TRUE(table.has_value());
  // Bits 3 v + i: value situations 0 (a < c), 1 (equal) and 4 (c NaN) take c.
  EXPECT_EQ(table->take_value, 0b111'000'000'111'111u);
  EXPECT_EQ(table->take_index, 0b111'000'000'110'111u);

  // Outside the form: a TOTALORDER comparison, a comparison of a value with an index's kind,
  // an arithmetic step.
  ElementProgram total = p;
  total.steps[static_cast<size_t>(greater)].compare_type = CompareType::kTotalOrder;
  EXPECT_FALSE(recognise_arg_pick(total).has_value());
  ElementProgram mixed = p;
  mixed.steps[static_cast<size_t>(lower)].operands = {a, d, -1};
  EXPECT_FALSE(recognise_arg_pick(mixed).has_value());
  ElementProgram arithmetic = p;
  arithmetic.steps[static_cast<size_t>(tie)].op = ElementOp::kBinary;
  arithmetic.steps[static_cast<size_t>(tie)].binary = BinaryOp::kAdd;
  EXPECT_FALSE(recognise_arg_pick(arithmetic).has_value());
}

template <class T>
std::vector<unsigned char> bytes_of(const Tensor& t) {
  const std::vector<T> v = values<T>(t);
  std::vector<unsigned char> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// The native fold and the element program give the same bits for both results, in every
// layout and reduced dim, and the index is the naive argmax / argmin.
TEST(ArgPick, NativeFoldMatchesTheElementProgramBitForBit) {
  std::mt19937 rng(17);
  const float pool[] = {-1, 0, -0.0F, 1, 2, std::numeric_limits<float>::quiet_NaN()};
  struct Case {
    Shape shape;
    int64_t dim;
  };
  for (const Case& c : {Case{{37, 300}, 1}, Case{{37, 300}, 0}, Case{{5, 40, 7}, 1}, Case{{600}, 0},
                        Case{{300, 2}, 1}}) {
    for (const std::string direction : {"GT", "LT"}) {
      std::vector<float> v(static_cast<size_t>(checked_numel(c.shape)));
      for (float& e : v) e = pool[rng() % (rng() % 8 == 0 ? 6 : 5)];
      const Tensor x = f32(c.shape, v);
      ArgProgram p{c.shape, c.dim, "f32", "i32", direction};
      const auto native = compile(arg_program(p));
      p.disguised = true;
      const auto element = compile(arg_program(p));
      for (const Tensor& input : {x, column_major(x)}) {
        const auto fast = execute(*native, {input});
        const auto slow = execute(*element, {input});
        EXPECT_EQ(bytes_of<float>(fast[0]), bytes_of<float>(slow[0]));
        EXPECT_EQ(values<int32_t>(fast[1]), values<int32_t>(slow[1]));
      }
    }
  }
}

TEST(ArgPick, IntegerValuesAndWideIndices) {
  // i32 values with i64 indices, f64 values with i32 indices, against a naive argmax.
  std::mt19937 rng(23);
  const Shape shape{50, 9};
  std::vector<int32_t> ints(450);
  for (int32_t& e : ints) e = static_cast<int32_t>(rng() % 7) - 3;
  const auto r = run(arg_program({shape, 1, "i32", "i64", "GT"}), {i32(shape, ints)});
  std::vector<double> doubles(ints.begin(), ints.end());
  const auto rd = run(arg_program({shape, 1, "f64", "i32", "LT"}), {f64(shape, doubles)});
  const std::vector<int64_t> got = values<int64_t>(r[1]);
  const std::vector<int32_t> got_min = values<int32_t>(rd[1]);
  for (int64_t row = 0; row < 50; ++row) {
    int64_t best = 0, least = 0;
    for (int64_t k = 1; k < 9; ++k) {
      if (ints[row * 9 + k] > ints[row * 9 + best]) best = k;
      if (ints[row * 9 + k] < ints[row * 9 + least]) least = k;
    }
    EXPECT_EQ(got[static_cast<size_t>(row)], best);
    EXPECT_EQ(got_min[static_cast<size_t>(row)], least);
  }
}

}  // namespace
}  // namespace ndbuf::program
