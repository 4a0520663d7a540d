// Fused groups against unfused runs, bit for bit, over every buffer dtype: chains of the ops
// each dtype allows at sizes around the tile edges (8 KiB per register of the program's
// widest dtype), inputs holding NaN, signed zeros, infinities and the integers that overflow
// or divide by zero; converts between every pair of dtypes; broadcasts along each axis and
// axis pair, transposing broadcasts, 0-d operands and column-major inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "program/exec/fusion.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {
namespace {

struct SweepType {
  DType dtype;
  const char* name;  // as programs spell it
};

const std::vector<SweepType>& sweep_types() {
  static const std::vector<SweepType> types = {
      {DType::kPred, "i1"},           {DType::kI8, "i8"},
      {DType::kI16, "i16"},           {DType::kI32, "i32"},
      {DType::kI64, "i64"},           {DType::kU8, "ui8"},
      {DType::kU16, "ui16"},          {DType::kU32, "ui32"},
      {DType::kU64, "ui64"},          {DType::kF16, "f16"},
      {DType::kBF16, "bf16"},         {DType::kF32, "f32"},
      {DType::kF64, "f64"},           {DType::kC64, "complex<f32>"},
      {DType::kC128, "complex<f64>"},
  };
  return types;
}

bool is_float(DType d) {
  return d == DType::kF16 || d == DType::kBF16 || d == DType::kF32 || d == DType::kF64;
}
bool is_unsigned(DType d) {
  return d == DType::kU8 || d == DType::kU16 || d == DType::kU32 || d == DType::kU64;
}

// Doubles with the awkward values every few elements.
std::vector<double> float_values(int64_t n, uint32_t seed) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> special = {
      std::numeric_limits<double>::quiet_NaN(), -0.0, 0.0, inf, -inf, 1e-40, -3e38, 1.0, -1.0, 0.5};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-6.0, 6.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[i] = (rng() % 7 == 0) ? special[rng() % special.size()] : uniform(rng);
  }
  return v;
}

// Random integers of the dtype's width, with its minimum, maximum, -1, 0 and 1 mixed in.
Tensor integer_tensor(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  const size_t item = itemsize(dtype);
  auto* bytes = static_cast<unsigned char*>(t.data());
  std::mt19937_64 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint64_t bits = rng();
    switch (rng() % 10) {
      case 0:
        bits = 0;
        break;
      case 1:
        bits = ~uint64_t{0};  // -1, or the unsigned maximum
        break;
      case 2:
        bits = uint64_t{1} << (8 * item - 1);  // the signed minimum
        break;
      case 3:
        bits = 1;
        break;
      default:
        break;
    }
    if (dtype == DType::kPred) bits &= 1;
    std::memcpy(bytes + i * item, &bits, item);  // little-endian: the low bytes
  }
  return t;
}

Tensor sweep_input(DType dtype, const Shape& shape, uint32_t seed) {
  const int64_t n = checked_numel(shape);
  if (is_float(dtype)) return convert(f64(shape, float_values(n, seed)), dtype);
  if (is_complex(dtype)) {
    const DType part = dtype == DType::kC64 ? DType::kF32 : DType::kF64;
    const Tensor parts = convert(f64({n, 2}, float_values(2 * n, seed)), part);
    return Tensor::dense(parts.storage(), dtype, shape, Order::kRowMajor);
  }
  return integer_tensor(dtype, shape, seed);
}

std::string tensor_type(int64_t n, const char* element) {
  return "tensor<" + std::to_string(n) + "x" + element + ">";
}

// Writes a chain over %x, %y (tensors of type t) and %s (0-d, type s, broadcast as %sb) whose
// last value is %r; p is the predicate type of t's shape.
struct Chain {
  std::string t, s, p, bin;
  bool is_unsigned_type = false;
  std::vector<std::string> body;
  void line(const std::string& text) { body.push_back(text); }
};

void pred_chain(Chain& c) {
  const std::string &t = c.t, &p = c.p, &bin = c.bin;
  const auto line = [&](const std::string& text) { c.line(text); };
  line("%1 = stablehlo.and %x, %sb" + bin);
  line("%2 = stablehlo.xor %1, %y" + bin);
  line("%3 = stablehlo.not %2" + bin);
  line("%4 = stablehlo.or %3, %x" + bin);
  line("%c = stablehlo.compare LT, %4, %y : (" + t + ", " + t + ") -> " + p);
  line("%r = stablehlo.select %c, %2, %4 : " + p + ", " + t);
}

void complex_chain(Chain& c) {
  const std::string &t = c.t, &p = c.p, &bin = c.bin;
  const auto line = [&](const std::string& text) { c.line(text); };
  line("%1 = stablehlo.multiply %x, %sb" + bin);
  line("%2 = stablehlo.add %1, %y" + bin);
  line("%3 = stablehlo.divide %2, %x" + bin);
  line("%4 = stablehlo.exponential %3" + bin);
  line("%5 = stablehlo.negate %4" + bin);
  line("%6 = stablehlo.sqrt %5" + bin);
  line("%7 = stablehlo.subtract %6, %y" + bin);
  line("%c = stablehlo.compare EQ, %x, %y : (" + t + ", " + t + ") -> " + p);
  line("%r = stablehlo.select %c, %3, %7 : " + p + ", " + t);
}

void float_chain(Chain& c) {
  const std::string &t = c.t, &s = c.s, &p = c.p, &bin = c.bin;
  const auto line = [&](const std::string& text) { c.line(text); };
  line("%1 = stablehlo.multiply %x, %sb" + bin);
  line("%2 = stablehlo.add %1, %y" + bin);
  line("%3 = stablehlo.divide %2, %x" + bin);
  line("%4 = stablehlo.tanh %3" + bin);
  line("%5 = stablehlo.exponential %y" + bin);
  line("%6 = stablehlo.log %5" + bin);
  line("%7 = stablehlo.maximum %4, %6" + bin);
  line("%8 = stablehlo.minimum %7, %x" + bin);
  line("%9 = stablehlo.sqrt %8" + bin);
  line("%10 = stablehlo.logistic %2" + bin);
  line("%11 = stablehlo.remainder %10, %y" + bin);
  line("%12 = stablehlo.reduce_precision %11, format = e5m7" + bin);
  line("%c = stablehlo.compare LT, %8, %y : (" + t + ", " + t + ") -> " + p);
  line("%13 = stablehlo.select %c, %9, %12 : " + p + ", " + t);
  line("%14 = stablehlo.clamp %s, %13, %y : (" + s + ", " + t + ", " + t + ") -> " + t);
  line("%15 = stablehlo.round_nearest_even %14" + bin);
  line("%16 = stablehlo.abs %15" + bin);
  line("%17 = stablehlo.negate %16" + bin);
  line("%18 = stablehlo.rsqrt %x" + bin);
  line("%r = stablehlo.add %17, %18" + bin);
}

void integer_chain(Chain& c) {
  const std::string &t = c.t, &s = c.s, &p = c.p, &bin = c.bin;
  const bool unsigned_type = c.is_unsigned_type;
  const auto line = [&](const std::string& text) { c.line(text); };
  line("%1 = stablehlo.add %x, %y" + bin);
  line("%2 = stablehlo.multiply %1, %x" + bin);
  line("%3 = stablehlo.subtract %2, %sb" + bin);
  line("%4 = stablehlo.divide %3, %y" + bin);
  line("%5 = stablehlo.remainder %x, %y" + bin);
  line("%6 = stablehlo.maximum %4, %5" + bin);
  line("%7 = stablehlo.minimum %6, %y" + bin);
  line("%8 = stablehlo.xor %7, %x" + bin);
  line("%9 = stablehlo.shift_left %8, %y" + bin);
  line("%10 = stablehlo.shift_right_arithmetic %9, %x" + bin);
  line("%11 = stablehlo.shift_right_logical %10, %y" + bin);
  line("%12 = stablehlo.popcnt %11" + bin);
  line("%13 = stablehlo.count_leading_zeros %10" + bin);
  line("%14 = stablehlo.add %12, %13" + bin);
  line("%15 = stablehlo.negate %14" + bin);
  line("%c = stablehlo.compare LT, %15, %y : (" + t + ", " + t + ") -> " + p);
  line("%16 = stablehlo.select %c, %15, %8 : " + p + ", " + t);
  line("%17 = stablehlo.clamp %s, %16, %y : (" + s + ", " + t + ", " + t + ") -> " + t);
  line("%18 = stablehlo.and %17, %2" + bin);
  line(std::string("%r = stablehlo.") + (unsigned_type ? "or" : "abs") + " %18" +
       (unsigned_type ? ", %x" : "") + bin);
}

std::vector<std::string> chain_body(const SweepType& type, const std::string& t) {
  Chain c;
  c.t = t;
  c.s = std::string("tensor<") + type.name + ">";
  c.p = "tensor<" + t.substr(7, t.find('x') - 7) + "xi1>";
  c.bin = " : " + t;
  c.is_unsigned_type = is_unsigned(type.dtype);
  c.line("%sb = stablehlo.broadcast_in_dim %s, dims = [] : (" + c.s + ") -> " + t);
  if (type.dtype == DType::kPred) {
    pred_chain(c);
  } else if (is_complex(type.dtype)) {
    complex_chain(c);
  } else if (is_float(type.dtype)) {
    float_chain(c);
  } else {
    integer_chain(c);
  }
  return c.body;
}

std::string chain_text(const SweepType& type, int64_t n) {
  const std::string t = tensor_type(n, type.name);
  const std::string s = std::string("tensor<") + type.name + ">";
  std::string text =
      "func.func @main(%x: " + t + ", %y: " + t + ", %s: " + s + ") -> " + t + " {\n";
  for (const std::string& line : chain_body(type, t)) text += "  " + line + "\n";
  return text + "  return %r : " + t + "\n}\n";
}

// Runs fused (expecting exactly one fused group) and unfused; the same bits.
void expect_one_group(const std::string& text, const std::vector<Tensor>& inputs) {
  const int64_t before = fused_program_runs();
  expect_fusion_exact(text, inputs);
  EXPECT_EQ(fused_program_runs() - before, 1) << text;
}

// Sizes around a tile of `lanes` elements, and a large odd one.
std::vector<int64_t> edge_sizes(int64_t lanes) {
  return {1, lanes - 1, lanes, lanes + 1, 2 * lanes + 1, 5 * lanes + 37};
}

int64_t lanes_of(DType widest) { return 8192 / static_cast<int64_t>(itemsize(widest)); }

TEST(FusionSweep, ChainsOfEveryDtypeAtTileEdges) {
  uint32_t seed = 1;
  for (const SweepType& type : sweep_types()) {
    // The chains' registers are of the dtype, or pred (narrower), so its width sets the tile.
    for (int64_t n : edge_sizes(lanes_of(type.dtype))) {
      SCOPED_TRACE(std::string(type.name) + " n=" + std::to_string(n));
      expect_one_group(chain_text(type, n),
                       {sweep_input(type.dtype, {n}, seed), sweep_input(type.dtype, {n}, seed + 1),
                        sweep_input(type.dtype, {}, seed + 2)});
      seed += 3;
    }
  }
}

TEST(FusionSweep, ConvertsBetweenEveryPairOfDtypes) {
  uint32_t seed = 100;
  for (const SweepType& from : sweep_types()) {
    for (const SweepType& to : sweep_types()) {
      if (is_complex(from.dtype) && !is_complex(to.dtype)) continue;  // the spec refuses these
      const DType widest = itemsize(from.dtype) > itemsize(to.dtype) ? from.dtype : to.dtype;
      for (int64_t n : {int64_t{1}, lanes_of(widest) + 1, 3 * lanes_of(widest) + 5}) {
        SCOPED_TRACE(std::string(from.name) + " -> " + to.name + " n=" + std::to_string(n));
        const std::string a = tensor_type(n, from.name);
        const std::string b = tensor_type(n, to.name);
        const std::string p = tensor_type(n, "i1");
        const std::string text = "func.func @main(%x: " + a + ", %y: " + a + ", %p: " + p +
                                 ") -> " + b + " {\n" + "  %1 = stablehlo.convert %x : (" + a +
                                 ") -> " + b + "\n" + "  %2 = stablehlo.convert %y : (" + a +
                                 ") -> " + b + "\n" + "  %3 = stablehlo.select %p, %1, %2 : " + p +
                                 ", " + b + "\n" + "  return %3 : " + b + "\n}\n";
        expect_one_group(
            text, {sweep_input(from.dtype, {n}, seed), sweep_input(from.dtype, {n}, seed + 1),
                   sweep_input(DType::kPred, {n}, seed + 2)});
        seed += 3;
      }
    }
  }
}

// x * broadcast(v) + y over a 3-d output whose last axis crosses tile edges, `v` broadcast
// along every axis subset (in order and transposed), of f32 and i32.
TEST(FusionSweep, BroadcastsAlongEachAxisAndTransposed) {
  struct Case {
    std::vector<int64_t> dims;  // output axis of each operand axis
  };
  const std::vector<Case> cases = {{{}},     {{0}},    {{1}},       {{2}},
                                   {{0, 1}}, {{0, 2}}, {{1, 2}},    {{2, 0}},
                                   {{2, 1}}, {{1, 0}}, {{0, 1, 2}}, {{2, 1, 0}}};
  uint32_t seed = 500;
  for (const SweepType type : {SweepType{DType::kF32, "f32"}, SweepType{DType::kI32, "i32"}}) {
    for (int64_t last : {int64_t{1}, int64_t{2047}, int64_t{2049}}) {
      const Shape shape = {3, 5, last};
      const std::string t = "tensor<3x5x" + std::to_string(last) + "x" + type.name + ">";
      for (const Case& c : cases) {
        Shape vshape;
        std::string vdims;
        for (size_t k = 0; k < c.dims.size(); ++k) {
          vshape.push_back(shape[c.dims[k]]);
          vdims += (k ? ", " : "") + std::to_string(c.dims[k]);
        }
        std::string vt = "tensor<";
        for (int64_t d : vshape) vt += std::to_string(d) + "x";
        vt += std::string(type.name) + ">";
        SCOPED_TRACE(t + " dims=[" + vdims + "]");
        const std::string text =
            "func.func @main(%x: " + t + ", %y: " + t + ", %v: " + vt + ") -> " + t + " {\n" +
            "  %vb = stablehlo.broadcast_in_dim %v, dims = [" + vdims + "] : (" + vt + ") -> " + t +
            "\n  %1 = stablehlo.multiply %x, %vb : " + t + "\n  %2 = stablehlo.add %1, %y : " + t +
            "\n  return %2 : " + t + "\n}\n";
        expect_one_group(
            text, {sweep_input(type.dtype, shape, seed), sweep_input(type.dtype, shape, seed + 1),
                   sweep_input(type.dtype, vshape, seed + 2)});
        seed += 3;
      }
    }
  }
}

// A size-1 axis broadcast to a longer one, a column-major operand (read by a strided walk)
// and 0-d operands passed as they are to select and clamp.
TEST(FusionSweep, UnitAxesColumnMajorOperandsAndScalars) {
  const int64_t rows = 37, cols = 301;
  const std::string m = "tensor<37x301xf64>";
  const std::string text =
      "func.func @main(%x: " + m + ", %y: " + m +
      ", %u: tensor<1x301xf64>, %p: tensor<i1>, "
      "%lo: tensor<f64>) -> " +
      m + " {\n" +
      "  %ub = stablehlo.broadcast_in_dim %u, dims = [0, 1] : (tensor<1x301xf64>) -> " + m +
      "\n  %1 = stablehlo.subtract %x, %ub : " + m +
      "\n  %2 = \"stablehlo.select\"(%p, %1, %y) : (tensor<i1>, " + m + ", " + m + ") -> " + m +
      "\n  %3 = stablehlo.clamp %lo, %2, %y : (tensor<f64>, " + m + ", " + m + ") -> " + m +
      "\n  %4 = stablehlo.multiply %3, %x : " + m + "\n  return %4 : " + m + "\n}\n";
  const Tensor x = sweep_input(DType::kF64, {rows, cols}, 900);
  const Tensor y = sweep_input(DType::kF64, {rows, cols}, 901);
  const Tensor u = sweep_input(DType::kF64, {1, cols}, 902);
  for (uint8_t p : {uint8_t{0}, uint8_t{1}}) {
    expect_one_group(text, {x, y, u, pred({}, {p}), f64({}, {-0.5})});
    expect_one_group(text, {column_major(x), y, u, pred({}, {p}), f64({}, {-0.5})});
    expect_one_group(text, {x, column_major(y), u, pred({}, {p}), f64({}, {-0.5})});
  }
}

}  // namespace
}  // namespace ndbuf::program::testing
