// Element programs against the interpreter over dtypes, NaN / -0 and tile edges: reduce with
// general bodies (fast steps and steps through the kernels), map, scatter with an update body,
// reduce_window and select_and_scatter with general bodies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ndbuf/program/program.hpp"
#include "tests/program/jax_programs.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

void expect_same_bits(const std::string& text, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out[2];
  for (int compiled = 0; compiled < 2; ++compiled) {
    CompileOptions options;
    options.compile_region_bodies = compiled == 1;
    out[compiled] = execute(*compile(text, Device{}, options), inputs);
  }
  ASSERT_EQ(out[0].size(), out[1].size());
  for (size_t k = 0; k < out[0].size(); ++k) {
    ASSERT_EQ(out[0][k].nbytes(), out[1][k].nbytes());
    EXPECT_EQ(0, std::memcmp(out[0][k].data(), out[1][k].data(), out[0][k].nbytes()))
        << "result " << k << " differs between compiled and interpreted bodies";
  }
}

// Bytes of `n` elements of `dtype` from a generator of doubles with NaN, -0 and ties.
Tensor awkward(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(-8, 8);
  std::vector<double> v(static_cast<size_t>(checked_numel(shape)));
  for (double& x : v) {
    const int p = pick(rng);
    x = p == 8 ? std::nan("") : p == -8 ? -0.0 : 0.5 * p;
  }
  if (dtype == DType::kF16) return f16(shape, v);
  if (dtype == DType::kBF16) return bf16(shape, v);
  if (dtype == DType::kF64) return f64(shape, v);
  if (dtype == DType::kF32) {
    std::vector<float> f(v.begin(), v.end());
    return f32(shape, f);
  }
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T* out = static_cast<T*>(t.data());
      for (size_t i = 0; i < v.size(); ++i) {
        // Through int64_t: a negative double converted straight to an unsigned type is
        // undefined; from an integer it wraps.
        out[i] = dtype == DType::kPred
                     ? T(std::isnan(v[i]) || v[i] > 0)
                     : static_cast<T>(static_cast<int64_t>(std::isnan(v[i]) ? 100 : v[i] * 2));
      }
    }
  });
  return t;
}

std::string op2(const std::string& r, const std::string& name, const std::string& a,
                const std::string& b, const std::string& e) {
  return "    " + r + " = \"stablehlo." + name + "\"(" + a + ", " + b + ") : (" + e + ", " + e +
         ") -> " + e + "\n";
}

// body(acc, x): floats: s = acc * 0.75 + x; select(s >= x, tanh(s), x - acc). Integers:
// s = acc + x; select(s < x, acc xor x, s). tanh and the 16-bit / small integer steps run
// through the kernels, the rest in the program's own loops.
std::string general_body(const std::string& name, bool is_float) {
  const std::string e = "tensor<" + name + ">";
  std::string b;
  if (is_float) {
    b = "    %c = \"stablehlo.constant\"() {value = dense<0.75> : " + e + "} : () -> " + e + "\n" +
        op2("%m", "multiply", "%acc", "%c", e) + op2("%s", "add", "%m", "%x", e) +
        "    %g = " + jax_compare("%s", "%x", "GE", "FLOAT", e) +
        "\n    %t = \"stablehlo.tanh\"(%s) : (" + e + ") -> " + e + "\n" +
        op2("%d", "subtract", "%x", "%acc", e) +
        "    %r = \"stablehlo.select\"(%g, %t, %d) : (tensor<i1>, " + e + ", " + e + ") -> " + e +
        "\n";
  } else {
    const std::string type = name[0] == 'u' ? "UNSIGNED" : "SIGNED";
    b = op2("%s", "add", "%acc", "%x", e) + "    %g = " + jax_compare("%s", "%x", "LT", type, e) +
        "\n" + op2("%y", "xor", "%acc", "%x", e) +
        "    %r = \"stablehlo.select\"(%g, %y, %s) : (tensor<i1>, " + e + ", " + e + ") -> " + e +
        "\n";
  }
  return b;
}

std::string reduce_text(const std::string& name, const std::string& shape, const std::string& dims,
                        const std::string& out, bool is_float) {
  const std::string e = "tensor<" + name + ">", in = "tensor<" + shape + name + ">";
  const std::string o = "tensor<" + out + name + ">";
  return "func.func @main(%v: " + in + ", %i: " + e + ") -> " + o +
         " {\n  %out = \"stablehlo.reduce\"(%v, %i) ({\n  ^bb0(%acc: " + e + ", %x: " + e + "):\n" +
         general_body(name, is_float) + "    \"stablehlo.return\"(%r) : (" + e +
         ") -> ()\n  }) {dimensions = array<i64: " + dims + ">} : (" + in + ", " + e + ") -> " + o +
         "\n  return %out : " + o + "\n}\n";
}

struct DTypeCase {
  DType dtype;
  const char* name;
  bool is_float;
};

const DTypeCase kCases[] = {{DType::kF32, "f32", true},  {DType::kF64, "f64", true},
                            {DType::kF16, "f16", true},  {DType::kBF16, "bf16", true},
                            {DType::kI32, "i32", false}, {DType::kI64, "i64", false},
                            {DType::kU8, "ui8", false},  {DType::kU32, "ui32", false}};

TEST(ElementProgramDTypes, ReduceWithGeneralBodiesOverDTypesAxesAndTileEdges) {
  for (const DTypeCase& c : kCases) {
    SCOPED_TRACE(c.name);
    const Tensor x = awkward(c.dtype, {5, 33, 7}, 11);
    const Tensor init = awkward(c.dtype, {}, 5);
    expect_same_bits(reduce_text(c.name, "5x33x7x", "1", "5x7x", c.is_float), {x, init});
    expect_same_bits(reduce_text(c.name, "5x33x7x", "0, 2", "33x", c.is_float), {x, init});
    expect_same_bits(reduce_text(c.name, "5x33x7x", "0, 1, 2", "", c.is_float), {x, init});
    const Tensor tall = awkward(c.dtype, {2057, 3}, 13);  // 2057 outputs: a short last tile
    expect_same_bits(reduce_text(c.name, "2057x3x", "1", "2057x", c.is_float),
                     {column_major(tall), init});
  }
}

TEST(ElementProgramDTypes, MapRunsTheBodyOnEveryElement) {
  for (const DTypeCase& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string e = std::string("tensor<") + c.name + ">";
    const std::string t = std::string("tensor<3000x") + c.name + ">";
    const std::string text = "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t +
                             " {\n  %out = \"stablehlo.map\"(%a, %b) ({\n  ^bb0(%acc: " + e +
                             ", %x: " + e + "):\n" + general_body(c.name, c.is_float) +
                             "    \"stablehlo.return\"(%r) : (" + e +
                             ") -> ()\n  }) {dimensions = array<i64: 0>} : (" + t + ", " + t +
                             ") -> " + t + "\n  return %out : " + t + "\n}\n";
    expect_same_bits(text, {awkward(c.dtype, {3000}, 1), awkward(c.dtype, {3000}, 2)});
  }
}

TEST(ElementProgramDTypes, ScatterReduceWindowAndSelectAndScatterWithGeneralBodies) {
  const std::string e = "tensor<f32>";
  // Scatter with duplicate indices: the order of updates matters to this body.
  const std::string scatter =
      "func.func @main(%v: tensor<6xf32>, %i: tensor<5x1xi32>, %u: tensor<5xf32>) -> "
      "tensor<6xf32> {\n  %out = \"stablehlo.scatter\"(%v, %i, %u) ({\n  ^bb0(%acc: " +
      e + ", %x: " + e + "):\n" + general_body("f32", true) + "    \"stablehlo.return\"(%r) : (" +
      e +
      ") -> ()\n  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
      "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<6xf32>, "
      "tensor<5x1xi32>, tensor<5xf32>) -> tensor<6xf32>\n  return %out : tensor<6xf32>\n}\n";
  expect_same_bits(scatter, {awkward(DType::kF32, {6}, 3), i32({5, 1}, {1, 4, 1, 0, 1}),
                             awkward(DType::kF32, {5}, 4)});
  const std::string window =
      "func.func @main(%v: tensor<40xf32>, %i: tensor<f32>) -> tensor<37xf32> {\n"
      "  %out = \"stablehlo.reduce_window\"(%v, %i) ({\n  ^bb0(%acc: " +
      e + ", %x: " + e + "):\n" + general_body("f32", true) + "    \"stablehlo.return\"(%r) : (" +
      e +
      ") -> ()\n  }) {window_dimensions = array<i64: 4>} : (tensor<40xf32>, tensor<f32>) -> "
      "tensor<37xf32>\n  return %out : tensor<37xf32>\n}\n";
  expect_same_bits(window, {awkward(DType::kF32, {40}, 5), awkward(DType::kF32, {}, 6)});
  // select: the larger of the negated values (the smaller element); scatter: the general body.
  const std::string sas =
      "func.func @main(%v: tensor<8xf32>, %w: tensor<4xf32>, %i: tensor<f32>) -> tensor<8xf32> "
      "{\n  %out = \"stablehlo.select_and_scatter\"(%v, %w, %i) ({\n  ^bb0(%a: " +
      e + ", %b: " + e + "):\n    %na = \"stablehlo.negate\"(%a) : (" + e + ") -> " + e +
      "\n    %nb = \"stablehlo.negate\"(%b) : (" + e + ") -> " + e +
      "\n    %g = " + jax_compare("%na", "%nb", "GE", "FLOAT", e) +
      "\n    \"stablehlo.return\"(%g) : (tensor<i1>) -> ()\n  }, {\n  ^bb0(%acc: " + e +
      ", %x: " + e + "):\n" + general_body("f32", true) + "    \"stablehlo.return\"(%r) : (" + e +
      ") -> ()\n  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : "
      "(tensor<8xf32>, tensor<4xf32>, tensor<f32>) -> tensor<8xf32>\n  return %out : "
      "tensor<8xf32>\n}\n";
  expect_same_bits(sas, {awkward(DType::kF32, {8}, 7), awkward(DType::kF32, {4}, 8),
                         awkward(DType::kF32, {}, 9)});
}

}  // namespace
}  // namespace ndbuf::program
