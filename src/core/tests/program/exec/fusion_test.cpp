// Loop fusion: fused programs give the bits unfused ones give, across block edges, broadcasts,
// layouts and dtypes; the groups formed are the ones expected.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {
namespace {

// tanh(a * x + b) * c - d, max(., 0), + x, negate: the benchmark's chain, on sizes around the
// block edges (16384 elements) and an odd tail.
std::string chain_program(int64_t n) {
  const std::string t = "tensor<" + std::to_string(n) + "xf32>";
  return "func.func @main(%x: " + t + ", %a: tensor<f32>, %b: tensor<f32>) -> " + t + " {\n" +
         "  %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> " + t + "\n" +
         "  %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> " + t + "\n" +
         "  %c = stablehlo.constant dense<2.0> : " + t + "\n" +
         "  %zero = stablehlo.constant dense<0.0> : " + t + "\n" +
         "  %1 = stablehlo.multiply %ab, %x : " + t + "\n" + "  %2 = stablehlo.add %1, %bb : " + t +
         "\n" + "  %3 = stablehlo.tanh %2 : " + t + "\n" +
         "  %4 = stablehlo.multiply %3, %c : " + t + "\n" +
         "  %5 = stablehlo.subtract %4, %bb : " + t + "\n" +
         "  %6 = stablehlo.maximum %5, %zero : " + t + "\n" + "  %7 = stablehlo.add %6, %x : " + t +
         "\n" + "  %8 = stablehlo.negate %7 : " + t + "\n" + "  return %8 : " + t + "\n}\n";
}

TEST(Fusion, ChainIsOneOpWithTheSameBitsAtEverySize) {
  EXPECT_EQ(planned_ops(chain_program(10)), (std::vector<std::string>{"fusion", "return"}));
  for (int64_t n : {1, 7, 16383, 16384, 16385, 40000}) {
    const std::vector<float> x = ramp(n, 0.01f, 0.1f);
    const auto out =
        expect_fusion_exact(chain_program(n), {f32({n}, x), f32({}, {0.5f}), f32({}, {0.25f})});
    const auto* y = static_cast<const float*>(out[0].data());
    for (int64_t i = 0; i < n; i += 97) {
      const double t = std::tanh(0.5 * x[i] + 0.25) * 2.0 - 0.25;
      const double expected = -(std::max(t, 0.0) + x[i]);
      ASSERT_NEAR(y[i], expected, 1e-5 * (1 + std::fabs(expected))) << "n " << n << " i " << i;
    }
  }
}

// Row and column biases on a matrix, one operand column-major (a transposed view).
TEST(Fusion, BroadcastsAlongEitherAxisAndStridedOperands) {
  const int64_t rows = 300, cols = 70;
  const std::string m = "tensor<300x70xf64>";
  const std::string text =
      "func.func @main(%x: " + m + ", %y: " + m + ", %r: tensor<70xf64>, %c: tensor<300xf64>) -> " +
      m + " {\n" + "  %rb = stablehlo.broadcast_in_dim %r, dims = [1] : (tensor<70xf64>) -> " + m +
      "\n" + "  %cb = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<300xf64>) -> " + m +
      "\n" + "  %1 = stablehlo.add %x, %rb : " + m + "\n  %2 = stablehlo.multiply %1, %cb : " + m +
      "\n  %3 = stablehlo.subtract %2, %y : " + m + "\n  return %3 : " + m + "\n}\n";
  std::vector<double> xv(rows * cols), yv(rows * cols), rv(cols), cv(rows);
  for (int64_t i = 0; i < rows * cols; ++i) xv[i] = 0.5 * static_cast<double>(i % 17) - 3;
  for (int64_t i = 0; i < rows * cols; ++i) yv[i] = static_cast<double>(i % 5);
  for (int64_t j = 0; j < cols; ++j) rv[j] = static_cast<double>(j);
  for (int64_t i = 0; i < rows; ++i) cv[i] = 1.0 + static_cast<double>(i) / 100;
  // y stored column-major: element (i, j) at yt[j * rows + i].
  std::vector<double> yt(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) yt[j * rows + i] = yv[i * cols + j];
  }
  const Tensor ycol = f64({cols, rows}, yt);
  const Tensor y(ycol.storage(), DType::kF64, {rows, cols}, {1, rows});
  const auto out =
      expect_fusion_exact(text, {f64({rows, cols}, xv), y, f64({cols}, rv), f64({rows}, cv)});
  const auto* z = static_cast<const double*>(out[0].data());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const double expected = (xv[i * cols + j] + rv[j]) * cv[i] - yv[i * cols + j];
      ASSERT_DOUBLE_EQ(z[i * cols + j], expected) << i << "," << j;
    }
  }
}

// A column broadcast (one value per row) feeds its rows whole, for elements of 1, 2, 4 and 8
// bytes; rows of 45 are long enough for the fill that doubles what it has written.
TEST(Fusion, ColumnBroadcastsFillWholeRowsOfEveryElementSize) {
  const int64_t rows = 5, cols = 45;
  const auto text = [&](const std::string& element, const std::string& op) {
    const std::string m = "tensor<5x45x" + element + ">";
    return "func.func @main(%x: " + m + ", %c: tensor<5x" + element + ">) -> " + m + " {\n" +
           "  %cb = stablehlo.broadcast_in_dim %c, dims = [0] : (tensor<5x" + element + ">) -> " +
           m + "\n  %y = " + op + " %x, %cb : " + m + "\n  %z = " + op + " %y, %x : " + m +
           "\n  return %z : " + m + "\n}\n";
  };
  std::vector<int32_t> xi(rows * cols);
  std::vector<double> xd(rows * cols);
  std::vector<uint8_t> xp(rows * cols);
  for (int64_t k = 0; k < rows * cols; ++k) {
    xi[k] = static_cast<int32_t>(k % 13) - 6;
    xd[k] = static_cast<double>(k % 7) / 4;
    xp[k] = static_cast<uint8_t>(k % 3 == 0);
  }
  const std::vector<int32_t> ci = {1, -2, 30, 4, 500};
  const std::vector<double> cd = {0.5, -1, 8, 0.25, 3};
  const std::vector<uint8_t> cp = {1, 0, 1, 1, 0};
  const auto i32_out =
      expect_fusion_exact(text("i32", "stablehlo.add"), {i32({rows, cols}, xi), i32({rows}, ci)});
  const auto i64_out = expect_fusion_exact(
      text("i64", "stablehlo.add"), {i64({rows, cols}, std::vector<int64_t>(xi.begin(), xi.end())),
                                     i64({rows}, std::vector<int64_t>(ci.begin(), ci.end()))});
  const auto f16_out = expect_fusion_exact(text("f16", "stablehlo.multiply"),
                                           {f16({rows, cols}, xd), f16({rows}, cd)});
  const auto pred_out =
      expect_fusion_exact(text("i1", "stablehlo.xor"), {pred({rows, cols}, xp), pred({rows}, cp)});
  const auto* zi = static_cast<const int32_t*>(i32_out[0].data());
  const auto* zl = static_cast<const int64_t*>(i64_out[0].data());
  const auto* zp = static_cast<const uint8_t*>(pred_out[0].data());
  const std::vector<double> zh = half_values(f16_out[0]);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const int64_t k = i * cols + j;
      ASSERT_EQ(zi[k], 2 * xi[k] + ci[i]) << i << "," << j;
      ASSERT_EQ(zl[k], 2 * int64_t{xi[k]} + ci[i]) << i << "," << j;
      // Quarters times halves and small whole numbers: exact in f16.
      ASSERT_EQ(zh[k], xd[k] * cd[i] * xd[k]) << i << "," << j;
      ASSERT_EQ(zp[k], cp[i]) << i << "," << j;  // (x xor c) xor x
    }
  }
}

// Transposes feeding a group are read in place with permuted strides (rank 2 and 3, a
// transposed operand read twice, and one also read outside the group, which stays), small ones
// as well (a 10 x 10 transpose feeding one add).
TEST(Fusion, TransposesFeedGroupsInPlace) {
  const std::string text =
      "func.func @main(%x: tensor<80x60xf32>, %y: tensor<60x80xf32>, %z: tensor<16x16x20xf32>) -> "
      "(tensor<60x80xf32>, tensor<20x16x16xf32>, tensor<16x20x16xf32>) {\n"
      "  %xt = stablehlo.transpose %x, dims = [1, 0] : (tensor<80x60xf32>) -> tensor<60x80xf32>\n"
      "  %a = stablehlo.multiply %xt, %y : tensor<60x80xf32>\n"
      "  %b = stablehlo.add %a, %xt : tensor<60x80xf32>\n"
      "  %zt = stablehlo.transpose %z, dims = [2, 0, 1] : (tensor<16x16x20xf32>) -> "
      "tensor<20x16x16xf32>\n"
      "  %e = stablehlo.exponential %zt : tensor<20x16x16xf32>\n"
      "  %n = stablehlo.negate %e : tensor<20x16x16xf32>\n"
      "  %zu = stablehlo.transpose %z, dims = [1, 2, 0] : (tensor<16x16x20xf32>) -> "
      "tensor<16x20x16xf32>\n"
      "  %s = stablehlo.sine %zu : tensor<16x20x16xf32>\n"
      "  %c = stablehlo.cosine %s : tensor<16x20x16xf32>\n"
      "  return %b, %n, %zu : tensor<60x80xf32>, tensor<20x16x16xf32>, tensor<16x20x16xf32>\n"
      "}\n";
  EXPECT_EQ(planned_ops(text),
            (std::vector<std::string>{"fusion", "fusion", "stablehlo.transpose", "return"}));
  const std::vector<float> x = ramp(4800, 0.05f, 0.1f), y = ramp(4800, 0.07f, -0.2f);
  const std::vector<float> z = ramp(5120, 0.3f, 0.0f);
  const auto out =
      expect_fusion_exact(text, {f32({80, 60}, x), f32({60, 80}, y), f32({16, 16, 20}, z)});
  const auto* b = static_cast<const float*>(out[0].data());
  for (int64_t i = 0; i < 60; ++i) {
    for (int64_t j = 0; j < 80; ++j) {
      const float xt = x[j * 60 + i];
      ASSERT_EQ(b[i * 80 + j], xt * y[i * 80 + j] + xt) << i << "," << j;
    }
  }
  const auto* n = static_cast<const float*>(out[1].data());
  for (int64_t k = 0; k < 20; ++k) {
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t j = 0; j < 16; ++j) {
        const double expected = -std::exp(static_cast<double>(z[(i * 16 + j) * 20 + k]));
        ASSERT_NEAR(n[(k * 16 + i) * 16 + j], expected, 1e-6 * std::fabs(expected));
      }
    }
  }
  const std::string small =
      "func.func @main(%x: tensor<10x10xf32>, %y: tensor<10x10xf32>) -> tensor<10x10xf32> {\n"
      "  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<10x10xf32>) -> tensor<10x10xf32>\n"
      "  %a = stablehlo.add %t, %y : tensor<10x10xf32>\n"
      "  return %a : tensor<10x10xf32>\n"
      "}\n";
  EXPECT_EQ(planned_ops(small), (std::vector<std::string>{"fusion", "return"}));
  const std::vector<float> u = ramp(100, 0.5f, -3.0f), v = ramp(100, 0.25f, 1.0f);
  const auto sum = expect_fusion_exact(small, {f32({10, 10}, u), f32({10, 10}, v)});
  const auto* a = static_cast<const float*>(sum[0].data());
  for (int64_t i = 0; i < 10; ++i) {
    for (int64_t j = 0; j < 10; ++j) ASSERT_EQ(a[i * 10 + j], u[j * 10 + i] + v[i * 10 + j]);
  }
}

// A value read twice inside the group is computed once; a value also returned roots a group.
TEST(Fusion, SharedAndReturnedIntermediates) {
  const std::string t = "tensor<20000xf32>";
  const std::string text =
      "func.func @main(%x: " + t + ") -> (" + t + ", " + t + ") {\n" +
      "  %1 = stablehlo.exponential %x : " + t + "\n" + "  %2 = stablehlo.multiply %1, %1 : " + t +
      "\n" + "  %3 = stablehlo.sqrt %2 : " + t + "\n" + "  %4 = stablehlo.add %3, %1 : " + t +
      "\n" + "  return %4, %1 : " + t + ", " + t + "\n}\n";
  EXPECT_EQ(planned_ops(text),
            (std::vector<std::string>{"stablehlo.exponential", "fusion", "return"}));
  const std::vector<float> x = ramp(20000, 0.003f, 0.0f);
  const auto out = expect_fusion_exact(text, {f32({20000}, x)});
  const auto* y = static_cast<const float*>(out[0].data());
  for (int64_t i = 0; i < 20000; i += 101) {
    ASSERT_NEAR(y[i], 2 * std::exp(static_cast<double>(x[i])), 1e-5 * y[i]);
  }
}

// Converts, compares, select and clamp with 0-d bounds; integer wrap-around; 16-bit floats
// round after every op, as unfused.
TEST(Fusion, MixedDtypesAndScalarOperands) {
  const std::string text =
      "func.func @main(%x: tensor<30000xf16>, %i: tensor<30000xi32>, %lo: tensor<i32>, "
      "%hi: tensor<i32>) -> (tensor<30000xf32>, tensor<30000xi32>) {\n"
      "  %1 = stablehlo.multiply %x, %x : tensor<30000xf16>\n"
      "  %2 = stablehlo.add %1, %x : tensor<30000xf16>\n"
      "  %3 = stablehlo.convert %2 : (tensor<30000xf16>) -> tensor<30000xf32>\n"
      "  %z = stablehlo.constant dense<1.5> : tensor<30000xf32>\n"
      "  %p = stablehlo.compare GT, %3, %z : (tensor<30000xf32>, tensor<30000xf32>) -> "
      "tensor<30000xi1>\n"
      "  %4 = stablehlo.select %p, %3, %z : tensor<30000xi1>, tensor<30000xf32>\n"
      "  %m = stablehlo.multiply %i, %i : tensor<30000xi32>\n"
      "  %c = stablehlo.clamp %lo, %m, %hi : (tensor<i32>, tensor<30000xi32>, tensor<i32>) -> "
      "tensor<30000xi32>\n"
      "  return %4, %c : tensor<30000xf32>, tensor<30000xi32>\n}\n";
  std::vector<double> xv(30000);
  std::vector<int32_t> iv(30000);
  for (int i = 0; i < 30000; ++i) {
    xv[i] = (i % 200) / 50.0 - 2.0;
    iv[i] = i * 1013 - 9000000;
  }
  const auto out = expect_fusion_exact(
      text, {f16({30000}, xv), i32({30000}, iv), i32({}, {-5}), i32({}, {2000000000})});
  const auto* c = static_cast<const int32_t*>(out[1].data());
  for (int i = 0; i < 30000; i += 37) {
    const int32_t wrapped =
        static_cast<int32_t>(static_cast<uint32_t>(iv[i]) * static_cast<uint32_t>(iv[i]));
    ASSERT_EQ(c[i], std::min(std::max(wrapped, -5), 2000000000)) << i;
  }
}

TEST(Fusion, OffGivesOneOpPerElementWiseOp) {
  CompileOptions options;
  options.fuse_elementwise = false;
  const auto out =
      run_with(chain_program(5), {f32({5}, {1, 2, 3, 4, 5}), f32({}, {1}), f32({}, {0})}, false);
  EXPECT_EQ(out[0].numel(), 5);
  EXPECT_EQ(compile_module(chain_program(5), true, options).plan->find("main")->body->steps.size(),
            12u);
}

}  // namespace
}  // namespace ndbuf::program::testing
