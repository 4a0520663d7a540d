// Factor masks folded into the factor: which selects fold into their cholesky and which stay,
// and that every run gives the bits of the run without the pass (and hand-computed values),
// failed factorisations and R's column-major matrices included.
#include "program/passes/mask_factors.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/passes/after_pass.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using testing::f64;
using testing::values;

struct Mask {
  std::string direction = "GE";  // row <direction> column, with the row iota on the left
  bool row_left = true;
  bool lower = true;
  std::string zero = "0.0";
  bool factor_returned_too = false;
};

// jnp.linalg.cholesky's shape of program on `shape` (n x n, or b x n x n), f64.
std::string masked_cholesky(const Mask& m, const std::string& shape = "3x3") {
  const std::string t = "tensor<" + shape + "xf64>";
  const std::string it = "tensor<" + shape + "xi32>";
  const std::string bt = "tensor<" + shape + "xi1>";
  const int rank = shape == "3x3" ? 2 : 3;
  const std::string row = std::to_string(rank - 2), col = std::to_string(rank - 1);
  const std::string results = m.factor_returned_too ? "(" + t + ", " + t + ")" : t;
  return "func.func @main(%a: " + t + ") -> " + results + " {\n" +
         "  %l = \"stablehlo.cholesky\"(%a) {lower = " + (m.lower ? "true" : "false") + "} : (" +
         t + ") -> " + t + "\n" + "  %row = stablehlo.iota dim = " + row + " : " + it + "\n" +
         "  %col = stablehlo.iota dim = " + col + " : " + it + "\n" +
         "  %keep = stablehlo.compare " + m.direction + ", " +
         (m.row_left ? "%row, %col" : "%col, %row") + ", SIGNED : (" + it + ", " + it + ") -> " +
         bt + "\n" + "  %zero = stablehlo.constant dense<" + m.zero + "> : tensor<f64>\n" +
         "  %zb = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f64>) -> " + t + "\n" +
         "  %y = stablehlo.select %keep, %l, %zb : " + bt + ", " + t + "\n" + "  return %y" +
         (m.factor_returned_too ? ", %l" : "") + " : " +
         (m.factor_returned_too ? t + ", " + t : t) + "\n}";
}

// How many masks folded, and @main's op names afterwards.
testing::AfterPass folded(const std::string& text) {
  return testing::after_pass(text, mask_factors);
}

std::vector<Tensor> run(const std::string& text, const Tensor& a, bool fold) {
  CompileOptions options;
  options.mask_factors = fold;
  return execute(*compile(text, Device{}, options), {a});
}

// Runs with and without the pass: the same bits; returns the folded run's results.
std::vector<Tensor> expect_unfolded_bits(const std::string& text, const Tensor& a) {
  const std::vector<Tensor> with = run(text, a, true);
  testing::expect_same_results(with, run(text, a, false), "runs with and without the pass");
  return with;
}

// A = L L^T for L = [[2, 0, 0], [1, 3, 0], [4, 5, 6]]: every step of the factorisation is exact.
const std::vector<double> kA = {4, 2, 8, 2, 10, 19, 8, 19, 77};
const std::vector<double> kLower = {2, 0, 0, 1, 3, 0, 4, 5, 6};
const std::vector<double> kUpper = {2, 1, 4, 0, 3, 5, 0, 0, 6};

TEST(MaskFactors, JaxsTrilOfALowerFactorFoldsIntoIt) {
  const std::string text = masked_cholesky({});
  const testing::AfterPass f = folded(text);
  EXPECT_EQ(f.count, 1);
  EXPECT_EQ(f.ops, (std::vector<std::string>{"stablehlo.cholesky", "return"}));
  EXPECT_EQ(values<double>(expect_unfolded_bits(text, f64({3, 3}, kA))[0]), kLower);
  const std::string plan = plan_text(compile_module(text, true));
  EXPECT_NE(plan.find("1 factor mask folded into the factor"), std::string::npos) << plan;
  EXPECT_NE(plan.find("@main: 1 step"), std::string::npos) << plan;
}

TEST(MaskFactors, EitherWayRoundAndUpperFactorsFold) {
  const Mask lower_swapped{"LE", false, true};
  const Mask upper{"LE", true, false};
  const Mask upper_swapped{"GE", false, false};
  for (const Mask& m : {lower_swapped, upper, upper_swapped}) {
    SCOPED_TRACE(m.direction + (m.row_left ? " row left" : " row right"));
    const std::string text = masked_cholesky(m);
    EXPECT_EQ(folded(text).count, 1);
    EXPECT_EQ(values<double>(expect_unfolded_bits(text, f64({3, 3}, kA))[0]),
              m.lower ? kLower : kUpper);
  }
}

TEST(MaskFactors, OtherMasksAndSharedFactorsStay) {
  const Mask strict{"GT"};          // zeroes the diagonal too
  const Mask wrong_triangle{"LE"};  // keeps the upper triangle of a lower factor
  const Mask ones{"GE", true, true, "1.0"};
  const Mask negative_zero{"GE", true, true, "-0.0"};
  Mask shared;
  shared.factor_returned_too = true;  // another reader sees the factor itself
  for (const Mask& m : {strict, wrong_triangle, ones, negative_zero, shared}) {
    SCOPED_TRACE(m.direction + " " + m.zero);
    const std::string text = masked_cholesky(m);
    EXPECT_EQ(folded(text).count, 0);
    expect_unfolded_bits(text, f64({3, 3}, kA));
  }
}

// Not positive definite: the masked factor has NaN in its triangle and zeros in the other, as
// the select makes of the kernel's matrix of NaNs; row-major and column-major (an R matrix,
// which LAPACK factors as it lies) alike.
TEST(MaskFactors, AFailedFactorisationKeepsTheMasksZeros) {
  const Tensor indefinite = f64({3, 3}, {1, 2, 3, 2, 1, 4, 3, 4, 1});
  for (const bool column_major : {false, true}) {
    for (const bool lower : {true, false}) {
      SCOPED_TRACE(std::string(column_major ? "column-major" : "row-major") +
                   (lower ? " lower" : " upper"));
      Mask m;
      m.lower = lower;
      m.direction = lower ? "GE" : "LE";
      const Tensor a =
          column_major ? copy_to(indefinite, Device{}, Order::kColumnMajor) : indefinite;
      const std::vector<double> got =
          values<double>(expect_unfolded_bits(masked_cholesky(m), a)[0]);
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          const double v = got[static_cast<size_t>(i * 3 + j)];
          const bool kept = lower ? i >= j : i <= j;
          EXPECT_EQ(std::isnan(v), kept) << i << "," << j;
          if (!kept) EXPECT_EQ(v, 0.0) << i << "," << j;
        }
      }
    }
  }
}

TEST(MaskFactors, BatchesOfRMatricesFold) {
  const std::string text = masked_cholesky({}, "2x3x3");
  EXPECT_EQ(folded(text).count, 1);
  std::vector<double> two = kA;
  for (double v : kA) two.push_back(4 * v);  // (2L)(2L)^T
  std::vector<double> expected = kLower;
  for (double v : kLower) expected.push_back(2 * v);
  EXPECT_EQ(values<double>(expect_unfolded_bits(text, f64({2, 3, 3}, two))[0]), expected);
  // One matrix made from an R matrix (column-major): the factor is computed as it lies.
  const Tensor r_matrix = copy_to(f64({3, 3}, kA), Device{}, Order::kColumnMajor);
  EXPECT_EQ(values<double>(expect_unfolded_bits(masked_cholesky({}), r_matrix)[0]), kLower);
}

}  // namespace
}  // namespace ndbuf::program
