// f16 and bf16 math rounds once from f32: each element-wise op on every 16-bit pattern gives the
// f32 op's result on the pattern's exact value, rounded once to nearest even by base/half's
// reference conversion; fused and unfused runs of a chain give the same bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/half.hpp"
#include "ndbuf/program/program.hpp"

namespace ndbuf::program {
namespace {

struct Format {
  DType dtype;
  const char* name;
  double (*widen)(uint16_t) noexcept;
  uint16_t (*narrow)(double) noexcept;
};

const Format kFormats[] = {
    {DType::kF16, "f16", &half_bits_to_double, &double_to_half_bits},
    {DType::kBF16, "bf16", &bfloat16_bits_to_double, &double_to_bfloat16_bits}};

constexpr int64_t kPatterns = 65536;

std::string tensor_type(const char* element) {
  return "tensor<" + std::to_string(kPatterns) + "x" + element + ">";
}

// A program of one op over `element` operands (two for a binary op).
std::string op_program(const std::string& op, bool binary, const char* element) {
  const std::string t = tensor_type(element);
  const std::string params = binary ? "%a: " + t + ", %b: " + t : "%a: " + t;
  const std::string operands = binary ? "%a, %b" : "%a";
  return "func.func @main(" + params + ") -> " + t + " {\n  %r = stablehlo." + op + " " + operands +
         " : " + t + "\n  return %r : " + t + "\n}\n";
}

Tensor patterns(uint32_t stride) {
  Tensor t = Tensor::allocate(DType::kU16, {kPatterns}, Order::kRowMajor);
  auto* bits = static_cast<uint16_t*>(t.data());
  for (int64_t i = 0; i < kPatterns; ++i) bits[i] = static_cast<uint16_t>(i * stride);
  return t;
}

Tensor as_dtype(const Tensor& bits, DType dtype) {
  Tensor t = Tensor::allocate(dtype, bits.shape(), Order::kRowMajor);
  std::memcpy(t.data(), bits.data(), bits.nbytes());
  return t;
}

// The operand's exact values as f32.
Tensor widened(const Tensor& bits, const Format& format) {
  Tensor t = Tensor::allocate(DType::kF32, bits.shape(), Order::kRowMajor);
  const auto* in = static_cast<const uint16_t*>(bits.data());
  auto* out = static_cast<float*>(t.data());
  for (int64_t i = 0; i < bits.numel(); ++i) out[i] = static_cast<float>(format.widen(in[i]));
  return t;
}

std::vector<Tensor> run(const std::string& text, std::vector<Tensor> inputs) {
  return execute(*compile(text), std::move(inputs));
}

void expect_rounded_once_from_f32(const std::string& op, bool binary) {
  // The second operand walks the patterns in another order, so pairs mix magnitudes.
  const Tensor a = patterns(1), b = patterns(40503);
  for (const Format& format : kFormats) {
    std::vector<Tensor> narrow_in = {as_dtype(a, format.dtype)};
    std::vector<Tensor> wide_in = {widened(a, format)};
    if (binary) {
      narrow_in.push_back(as_dtype(b, format.dtype));
      wide_in.push_back(widened(b, format));
    }
    const Tensor got = run(op_program(op, binary, format.name), narrow_in)[0];
    const Tensor wide = run(op_program(op, binary, "f32"), wide_in)[0];
    const auto* bits = static_cast<const uint16_t*>(got.data());
    const auto* f = static_cast<const float*>(wide.data());
    for (int64_t i = 0; i < kPatterns; ++i) {
      ASSERT_EQ(bits[i], format.narrow(static_cast<double>(f[i])))
          << op << " " << format.name << " element " << i << " of f32 result " << f[i];
    }
  }
}

TEST(HalfMath, UnaryOpsRoundOnceFromTheF32Op) {
  for (const char* op : {"exponential", "exponential_minus_one", "log", "log_plus_one", "tanh",
                         "logistic", "sine", "cosine", "sqrt", "rsqrt", "negate", "abs"}) {
    expect_rounded_once_from_f32(op, false);
  }
}

TEST(HalfMath, BinaryOpsRoundOnceFromTheF32Op) {
  for (const char* op : {"power", "atan2", "add", "multiply", "divide", "maximum"}) {
    expect_rounded_once_from_f32(op, true);
  }
}

// Hand values: exp(1) and tanh(0.5) in bf16 (exp(1) = 2.71828..., bf16 steps of 2^-6 near it:
// 2.71875; tanh(0.5) = 0.46211..., steps of 2^-9: 0.462890625).
TEST(HalfMath, HandValues) {
  const std::string text =
      "func.func @main(%a: tensor<2xbf16>) -> (tensor<2xbf16>, tensor<2xbf16>) {\n"
      "  %e = stablehlo.exponential %a : tensor<2xbf16>\n"
      "  %t = stablehlo.tanh %a : tensor<2xbf16>\n"
      "  return %e, %t : tensor<2xbf16>, tensor<2xbf16>\n}\n";
  Tensor x = Tensor::allocate(DType::kBF16, {2}, Order::kRowMajor);
  static_cast<BFloat16*>(x.data())[0] = to_bfloat16(1.0);
  static_cast<BFloat16*>(x.data())[1] = to_bfloat16(0.5);
  const std::vector<Tensor> out = run(text, {x});
  EXPECT_EQ(to_double(static_cast<const BFloat16*>(out[0].data())[0]), 2.71875);
  EXPECT_EQ(to_double(static_cast<const BFloat16*>(out[1].data())[1]), 0.462890625);
}

// A chain fused into one loop and run op by op rounds after every op alike.
TEST(HalfMath, FusedAndUnfusedChainsAgree) {
  for (const Format& format : kFormats) {
    const std::string t = tensor_type(format.name);
    const std::string text =
        "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t +
        " {\n"
        "  %1 = stablehlo.tanh %a : " +
        t + "\n" + "  %2 = stablehlo.add %1, %b : " + t + "\n" +
        "  %3 = stablehlo.exponential %2 : " + t + "\n" + "  %4 = stablehlo.power %3, %a : " + t +
        "\n" + "  %5 = stablehlo.multiply %4, %b : " + t + "\n" + "  return %5 : " + t + "\n}\n";
    const std::vector<Tensor> inputs = {as_dtype(patterns(1), format.dtype),
                                        as_dtype(patterns(40503), format.dtype)};
    std::vector<Tensor> out[2];
    for (int fused = 0; fused < 2; ++fused) {
      CompileOptions options;
      options.fuse_elementwise = fused == 1;
      out[fused] = execute(*compile(text, Device{}, options), inputs);
    }
    EXPECT_EQ(0, std::memcmp(out[0][0].data(), out[1][0].data(), out[0][0].nbytes()))
        << format.name;
  }
}

}  // namespace
}  // namespace ndbuf::program
