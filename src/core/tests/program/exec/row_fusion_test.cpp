// Fusion through reductions (row_fusion.hpp): softmax, layer norm and their kin run as one
// row-fused step whose results have the bits of the plain run and of loop fusion alone, for
// row-major and column-major inputs, any rank, across block edges; clusters that would not keep
// those bits or the program's order are left alone.
#include "program/exec/row_fusion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {
namespace {

std::string type_of(const std::vector<int64_t>& dims, const std::string& dtype = "f32") {
  std::string t = "tensor<";
  for (int64_t d : dims) t += std::to_string(d) + "x";
  return t + dtype + ">";
}

// A reduce of %in over `dims` with `body` (add, maximum) and init %init.
std::string reduce_line(const std::string& out, const std::string& in, const std::string& init,
                        const std::string& dims, const std::string& body, const std::string& from,
                        const std::string& to, const std::string& dtype = "f32") {
  return "  %" + out + " = stablehlo.reduce(%" + in + " init: %" + init + ") applies stablehlo." +
         body + " across dimensions = [" + dims + "] : (" + from + ", tensor<" + dtype + ">) -> " +
         to + "\n";
}

std::string broadcast_line(const std::string& out, const std::string& in, const std::string& dims,
                           const std::string& from, const std::string& to) {
  return "  %" + out + " = stablehlo.broadcast_in_dim %" + in + ", dims = [" + dims + "] : (" +
         from + ") -> " + to + "\n";
}

// Softmax over each row of [rows, cols], then layer norm of the result (the peer benchmark's
// program): max, exp of the difference, sum, divide, mean, centred squares, rsqrt.
std::string softmax_layernorm(int64_t rows, int64_t cols) {
  const std::string m = type_of({rows, cols}), v = type_of({rows});
  const std::string n = std::to_string(cols) + ".0";
  return "func.func @main(%x: " + m + ") -> " + m + " {\n" +
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n" +
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
         reduce_line("max", "x", "ninf", "1", "maximum", m, v) +
         broadcast_line("maxb", "max", "0", v, m) + "  %d = stablehlo.subtract %x, %maxb : " + m +
         "\n  %e = stablehlo.exponential %d : " + m + "\n" +
         reduce_line("sum", "e", "zero", "1", "add", m, v) +
         broadcast_line("sumb", "sum", "0", v, m) + "  %p = stablehlo.divide %e, %sumb : " + m +
         "\n  %n = stablehlo.constant dense<" + n + "> : " + v +
         "\n  %eps = stablehlo.constant dense<1.0e-05> : " + v + "\n" +
         reduce_line("psum", "p", "zero", "1", "add", m, v) +
         "  %mean = stablehlo.divide %psum, %n : " + v + "\n" +
         broadcast_line("meanb", "mean", "0", v, m) +
         "  %c = stablehlo.subtract %p, %meanb : " + m +
         "\n  %c2 = stablehlo.multiply %c, %c : " + m + "\n" +
         reduce_line("ss", "c2", "zero", "1", "add", m, v) +
         "  %var = stablehlo.divide %ss, %n : " + v + "\n  %ve = stablehlo.add %var, %eps : " + v +
         "\n  %r = stablehlo.rsqrt %ve : " + v + "\n" + broadcast_line("rb", "r", "0", v, m) +
         "  %y = stablehlo.multiply %c, %rb : " + m + "\n  return %y : " + m + "\n}\n";
}

// Runs `text` with both fusion passes, with loop fusion alone and with none: the same bits.
std::vector<Tensor> expect_row_fusion_exact(const std::string& text,
                                            const std::vector<Tensor>& inputs) {
  const int64_t before = row_fused_runs();
  const std::vector<Tensor> fused = run_with(text, inputs, true, true);
  EXPECT_GT(row_fused_runs(), before) << "no row-fused step ran";
  const std::vector<Tensor> loops = run_with(text, inputs, true, false);
  const std::vector<Tensor> plain = run_with(text, inputs, false);
  EXPECT_EQ(fused.size(), plain.size());
  for (size_t k = 0; k < fused.size() && k < plain.size(); ++k) {
    EXPECT_TRUE(same_bits(fused[k], plain[k])) << "result " << k << ": row fusion vs plain";
    EXPECT_TRUE(same_bits(fused[k], loops[k])) << "result " << k << ": row fusion vs loops";
  }
  return fused;
}

// The softmax + layer norm of one row, in double.
std::vector<double> softmax_layernorm_row(const float* x, int64_t cols) {
  double top = -INFINITY;
  for (int64_t c = 0; c < cols; ++c) top = std::max(top, static_cast<double>(x[c]));
  std::vector<double> p(static_cast<size_t>(cols));
  double sum = 0;
  for (int64_t c = 0; c < cols; ++c) sum += p[c] = std::exp(x[c] - top);
  double mean = 0;
  for (double& v : p) mean += v /= sum;
  mean /= static_cast<double>(cols);
  double ss = 0;
  for (double v : p) ss += (v - mean) * (v - mean);
  const double r = 1 / std::sqrt(ss / static_cast<double>(cols) + 1e-5);
  for (double& v : p) v = (v - mean) * r;
  return p;
}

TEST(RowFusion, SoftmaxLayerNormIsOneStepWithThePlainBits) {
  EXPECT_EQ(planned_ops(softmax_layernorm(8, 16)),
            (std::vector<std::string>{"stablehlo.constant", "stablehlo.constant", "row fusion",
                                      "return"}));
  for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 5}, {3, 1}, {17, 33}, {64, 1000}, {130, 257}, {9, 4100}}) {
    const std::vector<float> x = ramp(rows * cols, 0.37f, 0.2f);
    const Tensor row_major = f32({rows, cols}, x);
    for (const Tensor& input : {row_major, column_major(row_major)}) {
      const auto out = expect_row_fusion_exact(softmax_layernorm(rows, cols), {input});
      const std::vector<float> y = values<float>(out[0]);
      for (int64_t r = 0; r < rows; r += 7) {
        const std::vector<double> expect = softmax_layernorm_row(x.data() + r * cols, cols);
        for (int64_t c = 0; c < cols; ++c) {
          ASSERT_NEAR(y[r * cols + c], expect[c], 2e-3 * (1 + std::fabs(expect[c])))
              << rows << "x" << cols << " at " << r << "," << c;
        }
      }
    }
  }
}

// A result of 16 MiB or more is written around the caches (each row staged, then streamed), with
// the same bits; a smaller one is stored as usual.
TEST(RowFusion, LargeResultsWrittenAroundTheCachesKeepThePlainBits) {
  const int64_t rows = 4100, cols = 1024;  // 16.02 MiB of f32
  const std::vector<float> x = ramp(rows * cols, 0.013f, 0.5f);
  const int64_t before = row_fused_streamed_runs();
  const auto out = expect_row_fusion_exact(softmax_layernorm(rows, cols), {f32({rows, cols}, x)});
  EXPECT_GT(row_fused_streamed_runs(), before);
  const std::vector<float> y = values<float>(out[0]);
  for (int64_t r : {int64_t{0}, int64_t{2049}, rows - 1}) {
    const std::vector<double> expect = softmax_layernorm_row(x.data() + r * cols, cols);
    for (int64_t c = 0; c < cols; c += 97) {
      ASSERT_NEAR(y[r * cols + c], expect[c], 2e-3 * (1 + std::fabs(expect[c]))) << r << "," << c;
    }
  }
  const int64_t small = row_fused_streamed_runs();
  expect_row_fusion_exact(softmax_layernorm(64, 1000), {f32({64, 1000}, ramp(64000, 0.3f, 0.1f))});
  EXPECT_EQ(row_fused_streamed_runs(), small);
}

// What the plan shows (plan_text): the row-fused step with its ops (the two row constants are
// read in place, not run), sizes and lines.
TEST(RowFusion, PlanTextListsTheFusedStepAndItsOps) {
  const std::string expected =
      "@main: 3 steps (every result dense row-major)\n"
      "  1. stablehlo.constant -> tensor<f32>, 4 B [line 2]\n"
      "  2. stablehlo.constant -> tensor<f32>, 4 B [line 3]\n"
      "  3. row fusion of 18 ops -> tensor<8x16xf32>, 512 B [lines 4-23]\n"
      "       reduce x4, broadcast_in_dim x4, subtract x2, exponential, divide x3, multiply x2, "
      "add, rsqrt\n";
  EXPECT_EQ(plan_text(*compile(softmax_layernorm(8, 16))), expected);
}

// Layer norm over the last dim of [batch, tokens, width] with gain and bias over the width;
// the mean and the centred values are also results (they leave the cluster).
TEST(RowFusion, LayerNormOfRankThreeWithEscapingValues) {
  const int64_t b = 3, t = 50, w = 96;
  const std::string m = type_of({b, t, w}), v = type_of({b, t}), g = type_of({w});
  const std::string text =
      "func.func @main(%x: " + m + ", %gain: " + g + ", %bias: " + g + ") -> (" + m + ", " + v +
      ", " + m + ") {\n  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
      "  %n = stablehlo.constant dense<96.0> : " + v + "\n" +
      reduce_line("s", "x2", "zero", "2", "add", m, v) +
      "  %mean = stablehlo.divide %s, %n : " + v + "\n" +
      broadcast_line("mb", "mean", "0, 1", v, m) + "  %c = stablehlo.subtract %x2, %mb : " + m +
      "\n  %sq = stablehlo.multiply %c, %c : " + m + "\n" +
      reduce_line("ss", "sq", "zero", "2", "add", m, v) +
      "  %var = stablehlo.divide %ss, %n : " + v + "\n  %r = stablehlo.rsqrt %var : " + v + "\n" +
      broadcast_line("rb", "r", "0, 1", v, m) + broadcast_line("gb", "gain", "2", g, m) +
      broadcast_line("bb", "bias", "2", g, m) + "  %y0 = stablehlo.multiply %c, %rb : " + m +
      "\n  %y1 = stablehlo.multiply %y0, %gb : " + m + "\n  %y = stablehlo.add %y1, %bb : " + m +
      "\n  return %y, %mean, %c : " + m + ", " + v + ", " + m + "\n}\n";
  // %x2 = x * 2 makes the first reduction's operand computed in the cluster.
  const std::string program =
      std::string(text).replace(text.find("  %zero"), 0,
                                "  %two = stablehlo.constant dense<2.0> : " + m +
                                    "\n  %x2 = stablehlo.multiply %x, %two : " + m + "\n");
  const std::vector<float> x = ramp(b * t * w, 0.11f, 1.0f);
  std::vector<float> gain(w), bias(w);
  for (int64_t k = 0; k < w; ++k) gain[k] = 1.0f + 0.01f * k, bias[k] = -0.5f + 0.02f * k;
  const auto out =
      expect_row_fusion_exact(program, {f32({b, t, w}, x), f32({w}, gain), f32({w}, bias)});
  const std::vector<float> y = values<float>(out[0]), mean = values<float>(out[1]);
  for (int64_t row = 0; row < b * t; row += 11) {
    double s = 0, ss = 0;
    for (int64_t k = 0; k < w; ++k) s += 2.0 * x[row * w + k];
    const double mu = s / w;
    for (int64_t k = 0; k < w; ++k) ss += (2.0 * x[row * w + k] - mu) * (2.0 * x[row * w + k] - mu);
    EXPECT_NEAR(mean[row], mu, 1e-5 * (1 + std::fabs(mu)));
    for (int64_t k = 0; k < w; k += 5) {
      const double expect = (2.0 * x[row * w + k] - mu) / std::sqrt(ss / w) * gain[k] + bias[k];
      ASSERT_NEAR(y[row * w + k], expect, 1e-4 * (1 + std::fabs(expect))) << row << " " << k;
    }
  }
}

// log(sum(exp(x - max))) + max, f64, the max over a computed operand too: two reductions of one
// operand and a row result.
TEST(RowFusion, LogSumExpOfF64) {
  const int64_t rows = 40, cols = 301;
  const std::string m = type_of({rows, cols}, "f64"), v = type_of({rows}, "f64");
  const std::string text =
      "func.func @main(%x: " + m + ") -> " + v + " {\n" +
      "  %ninf = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>\n" +
      "  %zero = stablehlo.constant dense<0.0> : tensor<f64>\n  %a = stablehlo.abs %x : " + m +
      "\n" + reduce_line("top", "a", "ninf", "1", "maximum", m, v, "f64") +
      broadcast_line("tb", "top", "0", v, m) + "  %d = stablehlo.subtract %a, %tb : " + m +
      "\n  %e = stablehlo.exponential %d : " + m + "\n" +
      reduce_line("s", "e", "zero", "1", "add", m, v, "f64") + "  %l = stablehlo.log %s : " + v +
      "\n  %y = stablehlo.add %l, %top : " + v + "\n  return %y : " + v + "\n}\n";
  std::vector<double> x(rows * cols);
  for (size_t k = 0; k < x.size(); ++k) x[k] = std::sin(0.3 * static_cast<double>(k)) * 20;
  EXPECT_EQ(planned_ops(text), (std::vector<std::string>{"stablehlo.constant", "stablehlo.constant",
                                                         "row fusion", "return"}));
  const auto out = expect_row_fusion_exact(text, {f64({rows, cols}, x)});
  const std::vector<double> y = values<double>(out[0]);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += std::exp(std::fabs(x[r * cols + c]));
    EXPECT_NEAR(y[r], std::log(s), 1e-12 * std::log(s)) << r;
  }
}

// A maximum of an argument, loaded block by block: ties of -0 and +0 and NaNs with different
// payloads come out as the unfused kernel gives them for either layout of the argument.
TEST(RowFusion, MaximumOfAnArgumentKeepsTiesAndNanPayloads) {
  const int64_t rows = 6, cols = 40;
  const std::string m = type_of({rows, cols}), v = type_of({rows});
  const std::string text = "func.func @main(%x: " + m + ") -> (" + v + ", " + m + ") {\n" +
                           "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n" +
                           reduce_line("top", "x", "ninf", "1", "maximum", m, v) +
                           broadcast_line("tb", "top", "0", v, m) +
                           "  %d = stablehlo.subtract %x, %tb : " + m +
                           "\n  %e = stablehlo.exponential %d : " + m +
                           "\n  return %top, %e : " + v + ", " + m + "\n}\n";
  std::vector<float> x(rows * cols, -1.0f);
  const auto nan_with = [](uint32_t payload) {
    const uint32_t bits = 0x7FC00000u | payload;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  x[0 * cols + 1] = 0.0f, x[0 * cols + 16] = -0.0f;  // +0 first, -0 in lane 0's next run
  x[1 * cols + 3] = -0.0f, x[1 * cols + 35] = 0.0f;  // -0 first
  x[2 * cols + 5] = nan_with(5), x[2 * cols + 20] = nan_with(20);
  x[3 * cols + 17] = nan_with(17), x[3 * cols + 2] = nan_with(2);
  for (int64_t c = 0; c < cols; ++c) x[4 * cols + c] = static_cast<float>(c % 7);
  const Tensor row_major = f32({rows, cols}, x);
  for (const Tensor& input : {row_major, column_major(row_major)}) {
    const auto out = expect_row_fusion_exact(text, {input});
    EXPECT_EQ(values<float>(out[0])[4], 6.0f);
  }
}

// Each op of a row's value and a row (both sides of subtract, divide, maximum, minimum, add and
// multiply) runs on the row's one value, with the plain run's bits, f32 and f64.
TEST(RowFusion, RowValuesOnEitherSideOfAnOp) {
  const int64_t rows = 21, cols = 37;
  for (const std::string dtype : {"f32", "f64"}) {
    const std::string m = type_of({rows, cols}, dtype), v = type_of({rows}, dtype);
    const std::string ninf = dtype == "f32" ? "0xFF800000" : "0xFFF0000000000000";
    const auto op = [&](const std::string& out, const std::string& name, const std::string& a,
                        const std::string& b) {
      return "  %" + out + " = stablehlo." + name + " %" + a + ", %" + b + " : " + m + "\n";
    };
    const std::string text = "func.func @main(%x: " + m + ") -> " + m + " {\n" +
                             "  %ninf = stablehlo.constant dense<" + ninf + "> : tensor<" + dtype +
                             ">\n" + reduce_line("top", "x", "ninf", "1", "maximum", m, v, dtype) +
                             broadcast_line("tb", "top", "0", v, m) +
                             op("a", "subtract", "tb", "x") + op("b", "divide", "a", "tb") +
                             op("c", "divide", "tb", "b") + op("d", "maximum", "tb", "c") +
                             op("e", "minimum", "d", "tb") + op("f", "add", "tb", "e") +
                             op("g", "multiply", "tb", "f") + op("h", "subtract", "g", "tb") +
                             "  return %h : " + m + "\n}\n";
    std::vector<double> x(rows * cols);
    for (size_t k = 0; k < x.size(); ++k) x[k] = std::cos(0.7 * static_cast<double>(k)) * 3 + 0.5;
    const Tensor input = dtype == "f32" ? f32({rows, cols}, std::vector<float>(x.begin(), x.end()))
                                        : f64({rows, cols}, x);
    const auto out = expect_row_fusion_exact(text, {input});
    const std::vector<double> y = dtype == "f32" ? [&] {
      const std::vector<float> f = values<float>(out[0]);
      return std::vector<double>(f.begin(), f.end());
    }()
                                                 : values<double>(out[0]);
    for (int64_t r = 0; r < rows; ++r) {
      double top = -INFINITY;
      for (int64_t c = 0; c < cols; ++c) top = std::max(top, x[r * cols + c]);
      for (int64_t c = 0; c < cols; c += 5) {
        const double a = top - x[r * cols + c], b = a / top, cc = top / b;
        const double e = std::min(std::max(top, cc), top);
        const double expect = top * (top + e) - top;
        EXPECT_NEAR(y[r * cols + c], expect, 1e-4 * (1 + std::fabs(expect)))
            << dtype << " " << r << "," << c;
      }
    }
  }
}

// Results never depend on the thread count: a long sum (its chunks), a row-fused cluster.
TEST(RowFusion, ResultsDoNotDependOnTheThreadCount) {
  const int64_t n = 1000003;
  const std::string t = type_of({n});
  const std::string sum = "func.func @main(%x: " + t + ") -> tensor<f32> {\n" +
                          "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n" +
                          reduce_line("s", "x", "zero", "0", "add", t, "tensor<f32>") +
                          "  return %s : tensor<f32>\n}\n";
  const Tensor big = f32({n}, ramp(n, 0.001f, 0.3f));
  const Tensor rows = f32({256, 1000}, ramp(256000, 0.01f, 0.0f));
  const int setting = thread_setting();
  set_thread_setting(1);
  const Tensor one = run_with(sum, {big}, true)[0];
  const Tensor one_rows = run_with(softmax_layernorm(256, 1000), {rows}, true)[0];
  set_thread_setting(2);
  const Tensor two = run_with(sum, {big}, true)[0];
  const Tensor two_rows = run_with(softmax_layernorm(256, 1000), {rows}, true)[0];
  set_thread_setting(setting);
  EXPECT_TRUE(same_bits(one, two));
  EXPECT_TRUE(same_bits(one_rows, two_rows));
}

// What stays out: a reduction over a leading dim, rows too long to fold whole, a reduction of
// an argument (nothing to fuse into it), and a cluster an outside op would re-enter.
TEST(RowFusion, LeavesAloneWhatItCannotKeepExact) {
  const auto program = [](int64_t rows, int64_t cols, const std::string& dim) {
    const std::string m = type_of({rows, cols});
    const std::string v = type_of({dim == "1" ? rows : cols});
    return "func.func @main(%x: " + m + ") -> " + v + " {\n" +
           "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n  %e = stablehlo.exponential %x "
           ": " +
           m + "\n" + reduce_line("s", "e", "zero", dim, "add", m, v) + "  return %s : " + v +
           "\n}\n";
  };
  const std::vector<std::string> fused = {"stablehlo.constant", "row fusion", "return"};
  EXPECT_EQ(planned_ops(program(4, 8, "1")), fused);
  EXPECT_NE(planned_ops(program(4, 8, "0")), fused);
  EXPECT_NE(planned_ops(program(2, 8192, "1")), fused);
  EXPECT_EQ(planned_ops(program(2, 8191, "1")), fused);
  // %s's row result is added back to %e through an op that reads both (the cluster's %e and its
  // reduction %s) via a reverse outside it (a transpose would be read in place by the add's
  // fused loop): a path out of the cluster and back in.
  const std::string m = type_of({4, 4}), v = type_of({4});
  const std::string reentering =
      "func.func @main(%x: " + m + ") -> " + m + " {\n" +
      "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n  %e = stablehlo.exponential %x : " +
      m + "\n  %t = stablehlo.reverse %e, dims = [1] : " + m +
      "\n  %f = stablehlo.add %e, %t : " + m + "\n" +
      reduce_line("s", "f", "zero", "1", "add", m, v) + broadcast_line("sb", "s", "0", v, m) +
      "  %y = stablehlo.divide %e, %sb : " + m + "\n  return %y : " + m + "\n}\n";
  const std::vector<std::string> ops = planned_ops(reentering);
  const Tensor x = f32({4, 4}, ramp(16, 0.5f, 0.0f));
  const auto fused_out = run_with(reentering, {x}, true);
  const auto plain_out = run_with(reentering, {x}, false);
  EXPECT_TRUE(same_bits(fused_out[0], plain_out[0]));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "stablehlo.reverse"), 1);
}

}  // namespace
}  // namespace ndbuf::program::testing
