// Region bodies run as element programs against the interpreter, bit for bit, and against
// independent computations: JAX's argmax / argmin and sort / argsort forms, other bodies over
// dtypes and tile edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/program.hpp"
#include "program/element/element_compile.hpp"
#include "program/exec/compile.hpp"
#include "program/ops/reduction/reduce_program.hpp"
#include "program/ops/sort/sort_keys.hpp"
#include "tests/program/jax_programs.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/program_test_util.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

std::vector<Tensor> run_bodies(const std::string& text, const std::vector<Tensor>& inputs,
                               bool compiled) {
  CompileOptions options;
  options.compile_region_bodies = compiled;
  return execute(*compile(text, Device{}, options), inputs);
}

// Runs `text` with compiled and with interpreted region bodies; expects the same bytes.
std::vector<Tensor> expect_bodies_exact(const std::string& text,
                                        const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> compiled = run_bodies(text, inputs, true);
  testing::expect_same_results(compiled, run_bodies(text, inputs, false),
                               "compiled and interpreted bodies");
  return compiled;
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Values with ties, NaN, -0 / +0 and infinities in some rows.
std::vector<float> awkward_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-6, 6);
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    const int p = pick(rng);
    v[i] = p == 6 ? kNaN : p == -6 ? -kNaN : p == 5 ? kInf : p == -5 ? -0.0f : 0.5f * p;
  }
  return v;
}

// The index jnp.argmax's body picks along the axis: the first NaN, else the first maximum
// (-0 and +0 tie).
int32_t first_arg(const std::vector<float>& v, int64_t begin, int64_t step, int64_t n, bool max) {
  int32_t best = 0;
  for (int64_t k = 0; k < n; ++k) {
    const float x = v[begin + k * step];
    if (std::isnan(x)) return static_cast<int32_t>(k);
    const float b = v[begin + best * step];
    if (max ? x > b : x < b) best = static_cast<int32_t>(k);
  }
  return best;
}

TEST(ElementPrograms, JaxArgmaxAndArgminAlongEitherAxisFollowTheBody) {
  const int64_t rows = 37, cols = 300;  // tiles of lanes end mid-way; NaN rows and ties
  const std::vector<float> v = awkward_values(rows * cols, 7);
  const Tensor x = f32({rows, cols}, v);
  for (bool max : {true, false}) {
    const std::string dir = max ? "GT" : "LT", init = max ? "0xFF800000" : "0x7F800000";
    const std::string along_cols = jax_argminmax("37x300", "37", 1, "f32", "i32", dir, init);
    for (const Tensor& in : {x, column_major(x)}) {
      const auto r = values<int32_t>(expect_bodies_exact(along_cols, {in})[0]);
      for (int64_t i = 0; i < rows; ++i) {
        EXPECT_EQ(r[i], first_arg(v, i * cols, 1, cols, max)) << "row " << i;
      }
    }
    const std::string along_rows = jax_argminmax("37x300", "300", 0, "f32", "i32", dir, init);
    const auto r = values<int32_t>(expect_bodies_exact(along_rows, {x})[0]);
    for (int64_t j = 0; j < cols; ++j) {
      EXPECT_EQ(r[j], first_arg(v, j, cols, rows, max)) << "column " << j;
    }
  }
}

TEST(ElementPrograms, ArgmaxOfIntegersAndDoublesWithUnsignedIndices) {
  std::vector<int32_t> ints(5 * 9);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int32_t>((i * 7) % 5) - 2;
  const auto r = expect_bodies_exact(
      jax_argminmax("5x9", "5", 1, "i32", "ui64", "GT", "-2147483648"), {i32({5, 9}, ints)});
  const auto got = values<uint64_t>(r[0]);
  for (int64_t i = 0; i < 5; ++i) {
    const auto row = ints.begin() + i * 9;
    EXPECT_EQ(got[i], static_cast<uint64_t>(std::max_element(row, row + 9) - row));
  }
  std::vector<double> d = {1.5, -0.0, 0.0, 1.5, -3.0, 2.0, -3.0, 0.25};
  const auto m = expect_bodies_exact(
      jax_argminmax("2x4", "2", 1, "f64", "i32", "LT", "0x7FF0000000000000"), {f64({2, 4}, d)});
  EXPECT_EQ(values<int32_t>(m[0]), (std::vector<int32_t>{1, 0}));  // -0 == 0: the first
}

// The order jnp.sort gives: -0 as +0 and every NaN as +NaN, ascending, stable.
std::vector<int32_t> jax_sort_order(const std::vector<float>& v) {
  std::vector<int32_t> perm(v.size());
  std::iota(perm.begin(), perm.end(), 0);
  const auto rank = [&](int32_t i) { return std::isnan(v[i]) ? kInf * 2 : v[i] + 0.0f; };
  std::stable_sort(perm.begin(), perm.end(), [&](int32_t a, int32_t b) {
    if (std::isnan(v[a])) return false;
    return std::isnan(v[b]) || rank(a) < rank(b);
  });
  return perm;
}

TEST(ElementPrograms, JaxSortAndArgsortAreStableWithCanonicalNaNAndZero) {
  for (int64_t n : {1, 2, 5, 1000, 3000}) {
    const std::vector<float> v = awkward_values(n, static_cast<uint32_t>(n));
    const std::vector<int32_t> perm = jax_sort_order(v);
    const std::string size = std::to_string(n);
    const auto sorted = expect_bodies_exact(jax_sort(n, "f32", "0x7FC00000", false), {f32({n}, v)});
    const auto got = values<uint32_t>(sorted[0]);
    for (int64_t k = 0; k < n; ++k) {
      uint32_t bits;
      std::memcpy(&bits, &v[perm[k]], sizeof bits);
      EXPECT_EQ(got[k], bits) << "position " << k << " of " << n;
    }
    const auto order = expect_bodies_exact(jax_sort(n, "f32", "0x7FC00000", true), {f32({n}, v)});
    EXPECT_EQ(values<int32_t>(order[0]), perm);
  }
}

// A comparator whose compare is IEEE "<" on keys that may be NaN is no strict weak order; the
// key sort must still give the interpreter's permutation.
TEST(ElementPrograms, FloatCompareWithNaNKeysGivesTheInterpretersPermutation) {
  const int64_t n = 500;
  const std::vector<float> v = awkward_values(n, 3);
  const std::string text =
      "func.func @main(%x: tensor<500xf32>) -> tensor<500xf32> {\n"
      "  %r = \"stablehlo.sort\"(%x) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %na = \"stablehlo.negate\"(%a) : (tensor<f32>) -> tensor<f32>\n"
      "    %nb = \"stablehlo.negate\"(%b) : (tensor<f32>) -> tensor<f32>\n"
      "    %lt = " +
      jax_compare("%na", "%nb", "LT", "FLOAT", "tensor<f32>") +
      "\n    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n  }) {dimension = 0 : i64} : "
      "(tensor<500xf32>) -> tensor<500xf32>\n  return %r : tensor<500xf32>\n}\n";
  expect_bodies_exact(text, {f32({n}, v)});
}

TEST(ElementPrograms, TwoKeyComparatorRunsPerComparisonAndIsStable) {
  // JAX's lexicographic form for two keys: lt(a0, b0) or (eq(a0, b0) and lt(a1, b1)).
  const std::string e = "tensor<i32>";
  const std::string text =
      "func.func @main(%x: tensor<2x64xi32>, %y: tensor<2x64xi32>, %z: tensor<2x64xi32>) -> "
      "tensor<2x64xi32> {\n"
      "  %r:3 = \"stablehlo.sort\"(%x, %y, %z) ({\n  ^bb0(%a0: " +
      e + ", %b0: " + e + ", %a1: " + e + ", %b1: " + e + ", %a2: " + e + ", %b2: " + e +
      "):\n    %l0 = " + jax_compare("%a0", "%b0", "LT", "SIGNED", e) +
      "\n    %e0 = " + jax_compare("%a0", "%b0", "EQ", "SIGNED", e) +
      "\n    %l1 = " + jax_compare("%a1", "%b1", "LT", "SIGNED", e) +
      "\n    %t = \"stablehlo.and\"(%e0, %l1) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    %o = \"stablehlo.or\"(%l0, %t) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
      "    \"stablehlo.return\"(%o) : (tensor<i1>) -> ()\n  }) {dimension = 1 : i64, is_stable = "
      "true} : (tensor<2x64xi32>, tensor<2x64xi32>, tensor<2x64xi32>) -> (tensor<2x64xi32>, "
      "tensor<2x64xi32>, tensor<2x64xi32>)\n  return %r#2 : tensor<2x64xi32>\n}\n";
  std::vector<int32_t> a(128), b(128), id(128);
  for (int32_t i = 0; i < 128; ++i) {
    a[i] = (i * 5) % 3;
    b[i] = (i * 11) % 4;
    id[i] = i;
  }
  const auto r = expect_bodies_exact(text, {i32({2, 64}, a), i32({2, 64}, b), i32({2, 64}, id)});
  const auto got = values<int32_t>(r[0]);
  for (int row = 0; row < 2; ++row) {
    std::vector<int32_t> perm(id.begin() + row * 64, id.begin() + row * 64 + 64);
    std::stable_sort(perm.begin(), perm.end(), [&](int32_t p, int32_t q) {
      return std::make_pair(a[p], b[p]) < std::make_pair(a[q], b[q]);
    });
    EXPECT_EQ(std::vector<int32_t>(got.begin() + row * 64, got.begin() + row * 64 + 64), perm);
  }
}

// (acc, x) -> acc + x on f32, built by hand.
ElementProgram add_program() {
  ElementProgram p;
  p.arguments = {DType::kF32, DType::kF32};
  for (int32_t k = 0; k < 2; ++k) {
    ElementStep arg;
    arg.dtype = DType::kF32;
    arg.argument = k;
    p.steps.push_back(arg);
  }
  ElementStep add;
  add.op = ElementOp::kBinary;
  add.dtype = DType::kF32;
  add.binary = BinaryOp::kAdd;
  add.operands = {0, 1, -1};
  p.steps.push_back(add);
  p.results = {2};
  return p;
}

TEST(ElementPrograms, TilesComputeLanesAndKernelsRefuseMismatchedPrograms) {
  const ElementProgram add = add_program();
  ElementTile tile(add, 3);
  const float a[3] = {1.5f, -0.0f, kInf}, b[3] = {2.0f, 0.0f, -kInf};
  std::memcpy(tile.argument(0), a, sizeof a);
  std::memcpy(tile.argument(1), b, sizeof b);
  tile.run(3);
  float out[3];
  std::memcpy(out, tile.result(0), sizeof out);
  EXPECT_EQ(out[0], 3.5f);
  EXPECT_FALSE(std::signbit(out[1]));  // -0 + 0 = +0
  EXPECT_TRUE(std::isnan(out[2]));
  const auto sums = reduce_program({f32({2, 2}, {1, 2, 3, 4})}, {f32({}, {0.5f})}, {1}, add);
  EXPECT_EQ(values<float>(sums[0]), (std::vector<float>{3.5f, 7.5f}));
  try {
    reduce_program({i32({2}, {1, 2})}, {i32({}, {0})}, {0}, add);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "reduce: the body's argument and result types do not match the operands.");
  }
}

// The region of the first op named `name` in @main.
const Region& region_of(const Module& module, const std::string& name) {
  for (const Op& op : module.find("main")->body.ops) {
    if (op.name == name) return op.regions.at(0);
  }
  throw std::runtime_error("no " + name);
}

TEST(ElementPrograms, JaxBodiesCompileAndOthersKeepTheInterpreter) {
  const auto argmax = compile_module(jax_argminmax("4x5", "4", 1, "f32", "i32", "GT", "0.0"), true);
  const auto program = compile_element_program(region_of(*argmax.module, "stablehlo.reduce"));
  ASSERT_TRUE(program.has_value());
  EXPECT_EQ(program->arguments.size(), 4u);
  EXPECT_EQ(program->results.size(), 2u);
  // As written: each side canonicalises with its own NaN constant (one is edited below).
  CompileOptions as_written;
  as_written.canonicalise = false;
  const auto sort = compile_module(jax_sort(8, "f32", "0x7FC00000", true), true, as_written);
  const auto comparator = compile_element_program(region_of(*sort.module, "stablehlo.sort"));
  ASSERT_TRUE(comparator.has_value());
  const auto keys = comparator_keys(*comparator);
  ASSERT_TRUE(keys.has_value());  // the key is the canonicalised first operand
  EXPECT_EQ(keys->direction, CompareDirection::kLT);
  EXPECT_EQ(keys->type, CompareType::kTotalOrder);
  EXPECT_EQ(keys->key.arguments.size(), 2u);
  // A body that calls a function is not an element program.
  const std::string call =
      "func.func private @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {\n"
      "  %s = stablehlo.add %a, %b : tensor<f32>\n  return %s : tensor<f32>\n}\n"
      "func.func @main(%x: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {\n"
      "  %r = \"stablehlo.reduce\"(%x, %i) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
      "    %c = func.call @add(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
      "    \"stablehlo.return\"(%c) : (tensor<f32>) -> ()\n  }) {dimensions = array<i64: 0>} : "
      "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n  return %r : tensor<f32>\n}\n";
  const auto module = compile_module(call, true);
  EXPECT_FALSE(compile_element_program(region_of(*module.module, "stablehlo.reduce")).has_value());
  EXPECT_EQ(values<float>(run(call, {f32({4}, {1, 2, 3, 4}), f32({}, {0.5f})})[0]),
            std::vector<float>{10.5f});
  // Nor is a comparator whose sides differ (a key form needs the same computation on both).
  ElementProgram lopsided = *comparator;
  for (ElementStep& step : lopsided.steps) {
    if (step.op == ElementOp::kConstant && step.dtype == DType::kF32 && step.constant[3] == 0x7f) {
      step.constant[0] = 1;  // one side's NaN constant only
      break;
    }
  }
  EXPECT_FALSE(comparator_keys(lopsided).has_value());
}

}  // namespace
}  // namespace ndbuf::program
