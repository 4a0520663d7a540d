// Shape and size computations at the int64 boundaries and window
// reductions whose planning costs O(rank), not O(output x window). Programs that
// only compile are never run: their types describe terabytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::run;
using testing::values;

// A sum reduce_window of %x: `in` with init 0 and `attrs`, declared to give `out`.
std::string window_sum(const std::string& in, const std::string& out, const std::string& attrs) {
  return "func.func @main(%x: " + in + ") -> " + out +
         " {\n"
         "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %r = \"stablehlo.reduce_window\"(%x, %z) ({\n"
         "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
         "    %s = stablehlo.add %p, %q : tensor<f32>\n"
         "    stablehlo.return %s : tensor<f32>\n"
         "  }) {" +
         attrs + "} : (" + in + ", tensor<f32>) -> " + out + "\n  return %r : " + out + "\n}\n";
}

TEST(GeometryOverflow, WindowCountsThatWrapAreErrors) {
  // Window 2^32 over 4 elements padded by 2^33 at the end: 2^32 + 5 windows of 2^32 elements,
  // 2^64 + 5 * 2^32 visits (the table of 2^64 entries wrapped to 0 and was written past).
  EXPECT_EQ(compile_error(window_sum("tensor<4xf32>", "tensor<4294967301xf32>",
                                     "window_dimensions = array<i64: 4294967296>, padding = "
                                     "dense<[[0, 8589934592]]> : tensor<1x2xi64>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: windows (4294967301) of shape "
            "(4294967296) need more element visits than a 64-bit count can hold.");
  // 2^31 windows of 2^32 elements: 2^63 visits, one more than int64 holds; 2^31 - 1 windows
  // fit (the program compiles at once, without tables).
  EXPECT_EQ(compile_error(window_sum("tensor<1xf32>", "tensor<2147483648xf32>",
                                     "window_dimensions = array<i64: 4294967296>, padding = "
                                     "dense<[[0, 6442450942]]> : tensor<1x2xi64>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: windows (2147483648) of shape "
            "(4294967296) need more element visits than a 64-bit count can hold.");
  EXPECT_EQ(compile_error(window_sum("tensor<1xf32>", "tensor<2147483647xf32>",
                                     "window_dimensions = array<i64: 4294967296>, padding = "
                                     "dense<[[0, 6442450941]]> : tensor<1x2xi64>")),
            "");
  // Two dims whose window product passes int64.
  EXPECT_EQ(compile_error(window_sum("tensor<1x1xf32>", "tensor<1x1xf32>",
                                     "window_dimensions = array<i64: 4294967296, 2147483648>, "
                                     "padding = dense<[[0, 4294967295], [0, 2147483647]]> : "
                                     "tensor<2x2xi64>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: the window (4294967296, 2147483648) "
            "has more elements than a 64-bit count can hold.");
}

TEST(GeometryOverflow, DilationsThatWrapAreErrors) {
  const std::string in = "tensor<5xf32>";
  // Window 5 dilated by 2^62 spans 4 * 2^62 + 1 = 2^64 + 1 elements (it wrapped to 1 and the
  // program returned its input); dilated by 2^61 it spans 2^63 + 1; by 2^61 - 1 it fits and no
  // window fits in 5 elements.
  EXPECT_EQ(compile_error(window_sum(in, "tensor<5xf32>",
                                     "window_dimensions = array<i64: 5>, window_dilations = "
                                     "array<i64: 4611686018427387904>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: the dilated window size of dim 0, (5 - "
            "1) * 4611686018427387904 + 1, does not fit a 64-bit integer.");
  EXPECT_EQ(compile_error(window_sum(in, "tensor<5xf32>",
                                     "window_dimensions = array<i64: 5>, window_dilations = "
                                     "array<i64: 2305843009213693952>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: the dilated window size of dim 0, (5 - "
            "1) * 2305843009213693952 + 1, does not fit a 64-bit integer.");
  EXPECT_EQ(compile_error(window_sum(in, "tensor<0xf32>",
                                     "window_dimensions = array<i64: 5>, window_dilations = "
                                     "array<i64: 2305843009213693951>")),
            "");
  // Base dilation 2^62 of 5 elements: (5 - 1) * 2^62 + 1 (it wrapped to 1: shape (1)).
  EXPECT_EQ(compile_error(window_sum(in, "tensor<1xf32>",
                                     "window_dimensions = array<i64: 1>, base_dilations = "
                                     "array<i64: 4611686018427387904>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: the base-dilated input size of dim 0, "
            "(5 - 1) * 4611686018427387904 + 1, does not fit a 64-bit integer.");
  // 2 elements 2^62 apart fit: 2^62 + 1 positions, a window of 2^62 + 1 reads both.
  EXPECT_EQ(compile_error(window_sum("tensor<2xf32>", "tensor<1xf32>",
                                     "window_dimensions = array<i64: 4611686018427387905>, "
                                     "base_dilations = array<i64: 4611686018427387904>")),
            "");
  // Padding that passes INT64_MAX.
  EXPECT_EQ(compile_error(window_sum(in, "tensor<1xf32>",
                                     "window_dimensions = array<i64: 1>, padding = dense<[[1, "
                                     "9223372036854775807]]> : tensor<1x2xi64>")),
            "3:8: 'stablehlo.reduce_window' reduce_window: the padded input size of dim 0, 1 + 5 + "
            "9223372036854775807, does not fit a 64-bit integer.");
}

TEST(GeometryOverflow, HugeBaseDilationsReachTheirErrorAtOnce) {
  // base_dilations 1e8 on 5 elements: 4e8 + 1 windows of 1 (this took 21.6 s and 6.3 GB).
  EXPECT_EQ(compile_error(window_sum("tensor<5xf32>", "tensor<5xf32>",
                                     "window_dimensions = array<i64: 1>, base_dilations = "
                                     "array<i64: 100000000>")),
            "3:8: 'stablehlo.reduce_window' results must have shape (400000001)");
}

TEST(GeometryOverflow, MovingSumOfAThousandOverAMillion) {
  // Window 1000 over 1e6 elements (compiling took 22-31 s and 7.9 GB; window 10000 threw
  // std::bad_alloc) compiles; test-program-types.R runs it against cumsum().
  EXPECT_EQ(compile_error(window_sum("tensor<1000000xf32>", "tensor<999001xf32>",
                                     "window_dimensions = array<i64: 1000>")),
            "");
  EXPECT_EQ(compile_error(window_sum("tensor<1000000xf32>", "tensor<990001xf32>",
                                     "window_dimensions = array<i64: 10000>")),
            "");
  // Run over 1e5 elements (1e8 window visits, kept short for the parallel suite). Values
  // i % 16 keep every sum exact in f32; expected from prefix sums.
  const int64_t n = 100000, w = 1000, m = n - w + 1;
  std::vector<float> x(n);
  std::vector<int64_t> prefix(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 16);
    prefix[i + 1] = prefix[i] + i % 16;
  }
  const std::string text =
      window_sum("tensor<100000xf32>", "tensor<99001xf32>", "window_dimensions = array<i64: 1000>");
  const auto out = run(text, {testing::f32({n}, x)});
  const std::vector<float> got = values<float>(out[0]);
  ASSERT_EQ(static_cast<int64_t>(got.size()), m);
  for (int64_t i = 0; i < m; ++i) {
    ASSERT_EQ(got[i], static_cast<float>(prefix[i + w] - prefix[i])) << "window " << i;
  }
}

TEST(GeometryOverflow, WindowsLargerThanOnePieceKeepTheirOrder) {
  // A window of 10,000 > the 4096 elements handed over at a time, with strides and padding:
  // windows of x = 0 .. 9999 padded by 5 zeros each side, stride 7; sums by hand formula.
  const int64_t n = 10000;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7);
  const auto out = run(window_sum("tensor<10000xf32>", "tensor<2xf32>",
                                  "window_dimensions = array<i64: 10000>, window_strides = "
                                  "array<i64: 7>, padding = dense<[[5, 5]]> : tensor<1x2xi64>"),
                       {testing::f32({n}, x)});
  // Window 0 covers x[0 .. 9994], window 1 x[2 .. 9999] (positions 7 .. 10006 minus 5).
  double first = 0, second = 0;
  for (int64_t i = 0; i <= 9994; ++i) first += i % 7;
  for (int64_t i = 2; i < n; ++i) second += i % 7;
  EXPECT_EQ(values<float>(out[0]),
            (std::vector<float>{static_cast<float>(first), static_cast<float>(second)}));
}

std::string slice(const std::string& spec, const std::string& out) {
  return "func.func @main(%x: tensor<8xf32>) -> " + out + " {\n  %r = stablehlo.slice %x [" + spec +
         "] : (tensor<8xf32>) -> " + out + "\n  return %r : " + out + "\n}\n";
}

TEST(GeometryOverflow, SliceStridesUpToInt64Max) {
  const Tensor x = testing::f32({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  // ceil((limit - start) / stride): [0:8:INT64_MAX] takes element 0 (refused as "(0)").
  EXPECT_EQ(values<float>(run(slice("0:8:9223372036854775807", "tensor<1xf32>"), {x})[0]),
            (std::vector<float>{0}));
  EXPECT_EQ(values<float>(run(slice("7:8:9223372036854775807", "tensor<1xf32>"), {x})[0]),
            (std::vector<float>{7}));
  EXPECT_EQ(values<float>(run(slice("0:8:4611686018427387904", "tensor<1xf32>"), {x})[0]),
            (std::vector<float>{0}));
  EXPECT_EQ(values<float>(run(slice("0:8:7", "tensor<2xf32>"), {x})[0]),
            (std::vector<float>{0, 7}));
  EXPECT_EQ(values<float>(run(slice("8:8:9223372036854775807", "tensor<0xf32>"), {x})[0]),
            (std::vector<float>{}));
  EXPECT_EQ(compile_error(slice("0:8:9223372036854775807", "tensor<0xf32>")),
            "2:8: 'stablehlo.slice' result type tensor<0xf32> should have shape (1)");
}

TEST(GeometryOverflow, TypesLargerThanA64BitByteCountAreRefused) {
  const auto arg = [](const std::string& type) {
    return compile_error("func.func @main(%x: " + type + ") -> " + type +
                         " {\n  return %x : " + type + "\n}\n");
  };
  // 2^31 x 2^31 bytes = 2^62 fit; as f32 (2^64 bytes) they do not; 2^31 x 2^30 f32 are 2^63
  // bytes, one more than INT64_MAX, and (2^31 - 1) x 2^30 fit; (10^18 - 1) x 8 bytes fit and
  // x 16 do not (a dim has at most 18 digits).
  EXPECT_EQ(arg("tensor<2147483648x2147483648xi8>"), "");
  EXPECT_EQ(arg("tensor<2147483648x2147483648xf32>"),
            "1:21: type tensor<2147483648x2147483648xf32> has more bytes than a 64-bit count can "
            "hold");
  EXPECT_EQ(arg("tensor<2147483648x1073741824xf32>"),
            "1:21: type tensor<2147483648x1073741824xf32> has more bytes than a 64-bit count can "
            "hold");
  EXPECT_EQ(arg("tensor<2147483647x1073741824xf32>"), "");
  EXPECT_EQ(arg("tensor<999999999999999999xf64>"), "");
  EXPECT_EQ(arg("tensor<999999999999999999xcomplex<f64>>"),
            "1:21: type tensor<999999999999999999xcomplex<f64>> has more bytes than a 64-bit "
            "count can hold");
  EXPECT_EQ(arg("tensor<4294967296x4294967296x0xf32>"), "");  // empty: nothing to count
}

TEST(GeometryOverflow, PadAndConcatenateSizesAreChecked) {
  // 2^40 elements with 2^40 - 1 holes of 2^40 each between them: about 2^80.
  const std::string big = "tensor<1099511627776xi8>";
  EXPECT_EQ(compile_error("func.func @main(%x: " + big + ", %v: tensor<i8>) -> " + big +
                          " {\n  %r = stablehlo.pad %x, %v, low = [0], high = [0], interior = "
                          "[1099511627776] : (" +
                          big + ", tensor<i8>) -> " + big + "\n  return %r : " + big + "\n}\n"),
            "2:8: 'stablehlo.pad' padding makes axis 0 larger than a 64-bit integer can hold");
  // Ten operands of 10^18 - 1 elements: about 10^19 > INT64_MAX.
  const std::string e18 = "tensor<999999999999999999xi8>";
  std::string operands, types;
  for (int k = 0; k < 10; ++k) {
    operands += std::string(k ? ", " : "") + "%x";
    types += std::string(k ? ", " : "") + e18;
  }
  EXPECT_EQ(compile_error("func.func @main(%x: " + e18 + ") -> " + e18 +
                          " {\n  %r = stablehlo.concatenate " + operands + ", dim = 0 : (" + types +
                          ") -> " + e18 + "\n  return %r : " + e18 + "\n}\n"),
            "2:8: 'stablehlo.concatenate' the operands' sizes along dimension 0 add up to more "
            "than a 64-bit integer can hold");
}

}  // namespace
}  // namespace ndbuf::program
