// Fused matrix-vector pairs (matvec_pairs.hpp): a linear model's gradient X' f(X w) runs as one
// step whose results follow the documented summation orders bit for bit (checked against a
// plain implementation of those orders), stay within the stated bound of the exact values and
// of the plain run's, do not depend on the thread count or the ISA, and pairs the pass must not
// take are left to the plain products.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/matvec_pairs.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {
namespace {

std::string matrix_type(int64_t rows, int64_t cols, const std::string& dtype) {
  return "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + dtype + ">";
}
std::string vector_type(int64_t n, const std::string& dtype) {
  return "tensor<" + std::to_string(n) + "x" + dtype + ">";
}

// g = X' (X w - y), or with `logistic` X' (logistic(X w) - y) scaled by a broadcast constant.
std::string gradient_program(int64_t rows, int64_t cols, const std::string& dtype,
                             bool logistic = false) {
  const std::string m = matrix_type(rows, cols, dtype), v = vector_type(rows, dtype),
                    w = vector_type(cols, dtype);
  std::string body = "  %z = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + m +
                     ", " + w + ") -> " + v + "\n";
  if (logistic) {
    body += "  %p = stablehlo.logistic %z : " + v + "\n  %e = stablehlo.subtract %p, %y : " + v +
            "\n  %half = stablehlo.constant dense<0.5> : tensor<" + dtype + ">\n" +
            "  %hb = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<" + dtype + ">) -> " +
            v + "\n  %d = stablehlo.multiply %e, %hb : " + v + "\n";
  } else {
    body += "  %d = stablehlo.subtract %z, %y : " + v + "\n";
  }
  body += "  %g = stablehlo.dot_general %d, %x, contracting_dims = [0] x [0] : (" + v + ", " + m +
          ") -> " + w + "\n";
  return "func.func @main(%x: " + m + ", %y: " + v + ", %w: " + w + ") -> " + w + " {\n" + body +
         "  return %g : " + w + "\n}\n";
}

template <class T>
std::vector<T> wave(int64_t n, double scale, double shift) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(std::sin(i * scale) * 1.5 + shift);
  return v;
}

// The documented folds, written plainly: a sum of products in 16 lanes (element i into lane
// i % 16) summed by halving, and a fold one fma at a time.
template <class T>
T lanes_fold(const std::vector<T>& a, const std::vector<T>& b) {
  T lanes[16] = {};
  for (size_t i = 0; i < a.size(); ++i) lanes[i % 16] = std::fma(a[i], b[i], lanes[i % 16]);
  for (int width = 8; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}
template <class T>
T serial_fold(const std::vector<T>& a, const std::vector<T>& b) {
  T sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum = std::fma(a[i], b[i], sum);
  return sum;
}

// g = X' (X w - y) in the documented order for a matrix whose rows are contiguous in memory
// (an R matrix) or not; x is row-major [rows, cols].
template <class T>
std::vector<T> documented_gradient(const std::vector<T>& x, const std::vector<T>& y,
                                   const std::vector<T>& w, int64_t rows, int64_t cols,
                                   bool rows_contiguous) {
  std::vector<T> g(static_cast<size_t>(cols), T{0});
  for (int64_t first = 0; first < rows; first += kMatvecBlockRows) {
    const int64_t count = std::min(kMatvecBlockRows, rows - first);
    std::vector<T> d(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      const std::vector<T> row(x.begin() + (first + i) * cols, x.begin() + (first + i + 1) * cols);
      const T z = rows_contiguous ? serial_fold(row, w) : lanes_fold(row, w);
      d[i] = z - y[first + i];
    }
    for (int64_t j = 0; j < cols; ++j) {
      std::vector<T> column(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) column[i] = x[(first + i) * cols + j];
      g[j] += rows_contiguous ? lanes_fold(column, d) : serial_fold(column, d);
    }
  }
  return g;
}

// `t`'s logical values over memory where neither dim is contiguous: every other element of a
// [rows, 2 cols] row-major tensor.
Tensor strided_copy(const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  const size_t item = itemsize(t.dtype());
  Tensor wide = Tensor::allocate(t.dtype(), {rows, 2 * cols}, Order::kRowMajor);
  const Tensor dense = make_dense(t, Order::kRowMajor);
  auto* to = static_cast<unsigned char*>(wide.data());
  const auto* from = static_cast<const unsigned char*>(dense.data());
  for (int64_t k = 0; k < rows * cols; ++k) std::memcpy(to + 2 * k * item, from + k * item, item);
  return Tensor(wide.storage(), t.dtype(), {rows, cols}, {2 * cols, 2});
}

template <class T>
void expect_documented_bits(const std::string& dtype_name, DType dtype, int64_t rows,
                            int64_t cols) {
  const std::vector<T> x = wave<T>(rows * cols, 0.37, 0.1), y = wave<T>(rows, 0.11, 0.3);
  const std::vector<T> w = wave<T>(cols, 0.53, -0.2);
  const Tensor xt = tensor_of(dtype, {rows, cols}, x);
  const Tensor yt = tensor_of(dtype, {rows}, y), wt = tensor_of(dtype, {cols}, w);
  const std::string text = gradient_program(rows, cols, dtype_name);
  ASSERT_EQ(planned_ops(text), (std::vector<std::string>{"matvec pair", "return"}));
  const struct {
    const char* layout;
    Tensor matrix;
    bool rows_contiguous;
  } layouts[] = {{"row-major", xt, false},
                 {"column-major", column_major(xt), true},
                 {"strided", strided_copy(xt), false}};
  for (const auto& layout : layouts) {
    const int64_t before = matvec_pair_runs();
    const std::vector<Tensor> out = run_with(text, {layout.matrix, yt, wt}, true);
    EXPECT_EQ(matvec_pair_runs(), before + 1) << layout.layout;
    const std::vector<T> expected =
        documented_gradient(x, y, w, rows, cols, layout.rows_contiguous);
    const std::vector<T> got = values<T>(out[0]);
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)), 0)
        << layout.layout << ": g[0] " << got[0] << " against " << expected[0];
  }
}

TEST(MatvecPair, FollowsTheDocumentedOrdersBitForBit) {
  // 2100 rows: four whole blocks of 512 and one of 52 (3 lane widths and 4 rows); 67 columns:
  // 8 groups of 8 and 3 more.
  expect_documented_bits<float>("f32", DType::kF32, 2100, 67);
  expect_documented_bits<double>("f64", DType::kF64, 2060, 57);
}

// The bound of matvec_pairs.hpp, from the exact (long double) values: z_i within
// (cols + 4) eps sum_j |x_ij w_j|, d = z - y one rounding more, g_j within the propagated
// error of d plus (block rows + 4 + blocks) eps sum_i |x_ij d_i|.
TEST(MatvecPair, StaysWithinTheStatedBoundOfTheExactValuesAndOfThePlainRun) {
  const int64_t rows = 5000, cols = 100;
  const std::vector<float> x = wave<float>(rows * cols, 0.71, 0.0), y = wave<float>(rows, 0.3, 0.0);
  const std::vector<float> w = wave<float>(cols, 0.9, 0.05);
  const std::vector<Tensor> inputs = {column_major(f32({rows, cols}, x)), f32({rows}, y),
                                      f32({cols}, w)};
  const std::string text = gradient_program(rows, cols, "f32");
  const std::vector<float> fused = values<float>(run_with(text, inputs, true)[0]);
  CompileOptions plain_options;
  plain_options.fuse_matvec_pairs = false;
  const std::vector<float> plain =
      values<float>(execute(*compile(text, Device{}, plain_options), inputs)[0]);
  const double eps = std::numeric_limits<float>::epsilon();
  const double blocks = std::ceil(static_cast<double>(rows) / kMatvecBlockRows);
  std::vector<long double> d(rows);
  std::vector<double> d_error(rows);
  for (int64_t i = 0; i < rows; ++i) {
    long double z = 0, magnitude = 0;
    for (int64_t j = 0; j < cols; ++j) {
      z += static_cast<long double>(x[i * cols + j]) * w[j];
      magnitude += std::fabs(static_cast<long double>(x[i * cols + j]) * w[j]);
    }
    d[i] = z - y[i];
    d_error[i] = (cols + 4) * eps * static_cast<double>(magnitude) +
                 eps * std::fabs(static_cast<double>(d[i]));
  }
  for (int64_t j = 0; j < cols; ++j) {
    long double g = 0;
    double propagated = 0, magnitude = 0;
    for (int64_t i = 0; i < rows; ++i) {
      g += static_cast<long double>(x[i * cols + j]) * d[i];
      propagated += std::fabs(x[i * cols + j]) * d_error[i];
      magnitude += std::fabs(x[i * cols + j] * static_cast<double>(d[i]));
    }
    const double bound = propagated + (kMatvecBlockRows + 4 + blocks) * eps * magnitude;
    EXPECT_LE(std::fabs(fused[j] - static_cast<double>(g)), bound) << "column " << j;
    EXPECT_LE(std::fabs(fused[j] - static_cast<double>(plain[j])), 2 * bound) << "column " << j;
  }
}

TEST(MatvecPair, GivesTheSameBitsOnAnyThreadCountWithAChainOfLeaves) {
  const int64_t rows = 3000, cols = 90;
  const std::vector<Tensor> inputs = {
      column_major(f32({rows, cols}, ramp(rows * cols, 0.013f, 0.1f))),
      f32({rows}, ramp(rows, 0.2f, 0.0f)), f32({cols}, ramp(cols, 0.05f, 0.0f))};
  const std::string text = gradient_program(rows, cols, "f32", true);
  // The 0-d constant stays a step; its broadcast is read in place.
  ASSERT_EQ(planned_ops(text),
            (std::vector<std::string>{"stablehlo.constant", "matvec pair", "return"}));
  std::vector<Tensor> one, two;
  {
    const ThreadBudget budget(1);
    one = run_with(text, inputs, true);
  }
  {
    const ThreadBudget budget(2);
    two = run_with(text, inputs, true);
  }
  EXPECT_TRUE(same_bits(one[0], two[0]));
  // The chain's logistic and broadcast constant reach g: against a double computation.
  const std::vector<float> x = values<float>(inputs[0]), y = values<float>(inputs[1]),
                           w = values<float>(inputs[2]), g = values<float>(one[0]);
  for (int64_t j = 0; j < cols; j += 17) {
    double expected = 0, magnitude = 0;
    for (int64_t i = 0; i < rows; ++i) {
      double z = 0;
      for (int64_t k = 0; k < cols; ++k) z += static_cast<double>(x[i * cols + k]) * w[k];
      const double d = (1 / (1 + std::exp(-z)) - y[i]) * 0.5;
      expected += x[i * cols + j] * d;
      magnitude += std::fabs(x[i * cols + j] * d);
    }
    EXPECT_NEAR(g[j], expected, 1e-4 * magnitude + 1e-6) << "column " << j;
  }
}

TEST(MatvecPair, LeavesAloneWhatItMustNotTake) {
  const std::string m = matrix_type(2100, 100, "f32"), v = vector_type(2100, "f32"),
                    w = vector_type(100, "f32");
  const std::string z_line =
      "  %z = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + m + ", " + w +
      ") -> " + v + "\n";
  const std::string g_line =
      "  %g = stablehlo.dot_general %d, %x, contracting_dims = [0] x [0] : (" + v + ", " + m +
      ") -> " + w + "\n";
  const std::string head = "func.func @main(%x: " + m + ", %w: " + w + ", %y: " + v + ") -> (";
  // z returned as well: the pair would have to write it.
  const std::string z_escapes = head + w + ", " + v + ") {\n" + z_line +
                                "  %d = stablehlo.subtract %z, %y : " + v + "\n" + g_line +
                                "  return %g, %z : " + w + ", " + v + "\n}\n";
  EXPECT_EQ(planned_ops(z_escapes),
            (std::vector<std::string>{"stablehlo.dot_general", "stablehlo.subtract",
                                      "stablehlo.dot_general", "return"}));
  // An op in the chain that is not element-wise (reverse reads z out of position).
  const std::string reversed =
      head + w + ") {\n" + z_line + "  %r = stablehlo.reverse %z, dims = [0] : " + v + "\n" +
      "  %d = stablehlo.subtract %r, %y : " + v + "\n" + g_line + "  return %g : " + w + "\n}\n";
  EXPECT_EQ(planned_ops(reversed)[0], "stablehlo.dot_general");
  // The matrix as g's left operand, X' d written dot(X, d): the same pair.
  const std::string matrix_first =
      head + w + ") {\n" + z_line + "  %d = stablehlo.subtract %z, %y : " + v + "\n" +
      "  %g = stablehlo.dot_general %x, %d, contracting_dims = [0] x [0] : (" + m + ", " + v +
      ") -> " + w + "\n  return %g : " + w + "\n}\n";
  EXPECT_EQ(planned_ops(matrix_first), (std::vector<std::string>{"matvec pair", "return"}));
  // A matrix small enough for the caches, and one of too few rows to share among threads.
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{100, 100}, {2047, 1000}}) {
    EXPECT_EQ(planned_ops(gradient_program(rows, cols, "f32")),
              (std::vector<std::string>{"stablehlo.dot_general", "stablehlo.subtract",
                                        "stablehlo.dot_general", "return"}))
        << rows << " x " << cols;
  }
  // Integers keep the plain products.
  EXPECT_EQ(planned_ops(gradient_program(2100, 100, "i32"))[0], "stablehlo.dot_general");
}

TEST(MatvecPair, RunsAnEmptyChainAndAnEmptyMatrix) {
  const int64_t rows = 2100, cols = 96;
  const std::string m = matrix_type(rows, cols, "f32"), w = vector_type(cols, "f32"),
                    v = vector_type(rows, "f32");
  const std::string text =
      "func.func @main(%x: " + m + ", %w: " + w + ") -> " + w + " {\n" +
      "  %z = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + m + ", " + w +
      ") -> " + v + "\n  %g = stablehlo.dot_general %z, %x, contracting_dims = [0] x [0] : (" + v +
      ", " + m + ") -> " + w + "\n  return %g : " + w + "\n}\n";
  ASSERT_EQ(planned_ops(text), (std::vector<std::string>{"matvec pair", "return"}));
  const std::vector<float> x = wave<float>(rows * cols, 0.3, 0.0), wv = wave<float>(cols, 0.7, 0.0);
  const std::vector<float> g =
      values<float>(run_with(text, {f32({rows, cols}, x), f32({cols}, wv)}, true)[0]);
  for (int64_t j = 0; j < cols; j += 11) {
    double expected = 0, magnitude = 0;
    for (int64_t i = 0; i < rows; ++i) {
      double z = 0;
      for (int64_t k = 0; k < cols; ++k) z += static_cast<double>(x[i * cols + k]) * wv[k];
      expected += x[i * cols + j] * z;
      magnitude += std::fabs(x[i * cols + j] * z);
    }
    EXPECT_NEAR(g[j], expected, 1e-5 * magnitude) << "column " << j;
  }
}

// Three steps of gradient descent in a while loop, the matrix read from outside the body: the
// body's pair fuses, runs once a trip, and gives the same bits on any thread count.
TEST(MatvecPair, FusesInsideAWhileBody) {
  const int64_t rows = 2100, cols = 80;
  const std::string m = matrix_type(rows, cols, "f32"), v = vector_type(rows, "f32"),
                    w = vector_type(cols, "f32");
  const std::string text =
      "func.func @main(%x: " + m + ", %y: " + v + ", %w0: " + w + ") -> " + w + " {\n" +
      "  %zero = stablehlo.constant dense<0> : tensor<i64>\n" +
      "  %one = stablehlo.constant dense<1> : tensor<i64>\n" +
      "  %n = stablehlo.constant dense<3> : tensor<i64>\n" +
      "  %rate = stablehlo.constant dense<0.001> : " + w + "\n" +
      "  %r:2 = stablehlo.while(%i = %zero, %w = %w0) : tensor<i64>, " + w + "\n" + "    cond {\n" +
      "      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n" +
      "      stablehlo.return %lt : tensor<i1>\n" + "    } do {\n" +
      "      %z = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + m + ", " + w +
      ") -> " + v + "\n" + "      %p = stablehlo.logistic %z : " + v + "\n" +
      "      %d = stablehlo.subtract %p, %y : " + v + "\n" +
      "      %g = stablehlo.dot_general %d, %x, contracting_dims = [0] x [0] : (" + v + ", " + m +
      ") -> " + w + "\n" + "      %s = stablehlo.multiply %g, %rate : " + w + "\n" +
      "      %w2 = stablehlo.subtract %w, %s : " + w + "\n" +
      "      %i2 = stablehlo.add %i, %one : tensor<i64>\n" +
      "      stablehlo.return %i2, %w2 : tensor<i64>, " + w + "\n" + "    }\n" +
      "  return %r#1 : " + w + "\n}\n";
  EXPECT_NE(plan_text(*compile(text)).find("matrix-vector pair of 4 ops"), std::string::npos);
  const std::vector<Tensor> inputs = {
      column_major(f32({rows, cols}, wave<float>(rows * cols, 0.29, 0.0))),
      f32({rows}, wave<float>(rows, 0.7, 0.2)), f32({cols}, wave<float>(cols, 0.31, 0.0))};
  const int64_t before = matvec_pair_runs();
  std::vector<Tensor> one, two;
  {
    const ThreadBudget budget(1);
    one = run_with(text, inputs, true);
  }
  EXPECT_EQ(matvec_pair_runs(), before + 3);
  {
    const ThreadBudget budget(2);
    two = run_with(text, inputs, true);
  }
  EXPECT_TRUE(same_bits(one[0], two[0]));
  CompileOptions plain_options;
  plain_options.fuse_matvec_pairs = false;
  const std::vector<float> plain =
      values<float>(execute(*compile(text, Device{}, plain_options), inputs)[0]);
  const std::vector<float> fused = values<float>(one[0]);
  for (int64_t j = 0; j < cols; ++j) {
    EXPECT_NEAR(fused[j], plain[j], 1e-5 * (1 + std::fabs(plain[j]))) << "column " << j;
  }
}

}  // namespace
}  // namespace ndbuf::program::testing
