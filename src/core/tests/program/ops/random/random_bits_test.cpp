// rng_bit_generator: the block functions against the Random123 known-answer vectors, and the
// layout of counters over state and output against hand-worked cases and the spec's example.
#include "program/ops/random/random_bits.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::run;
using testing::tensor_of;
using testing::values;

using Words2 = std::array<uint32_t, 2>;
using Words4 = std::array<uint32_t, 4>;

TEST(RandomBits, Threefry2x32KnownAnswers) {
  EXPECT_EQ(threefry2x32({0, 0}, {0, 0}), (Words2{0x6b200159u, 0x99ba4efeu}));
  EXPECT_EQ(threefry2x32({0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
            (Words2{0x1cb996fcu, 0xbb002be7u}));
  EXPECT_EQ(threefry2x32({0x243f6a88u, 0x85a308d3u}, {0x13198a2eu, 0x03707344u}),
            (Words2{0xc4923a9cu, 0x483df7a0u}));
}

TEST(RandomBits, Philox4x32KnownAnswers) {
  EXPECT_EQ(philox4x32({0, 0, 0, 0}, {0, 0}),
            (Words4{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(
      philox4x32({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}),
      (Words4{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(
      philox4x32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}),
      (Words4{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

Tensor state_of(const std::vector<uint64_t>& s) {
  return tensor_of(DType::kU64, {static_cast<int64_t>(s.size())}, s);
}

// One rng_bit_generator program: (state) -> (new state, bits of `out`).
std::string rng_program(const std::string& algorithm, const std::string& state,
                        const std::string& out) {
  return "func.func @main(%s: " + state + ") -> (" + state + ", " + out + ") {\n" +
         "  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = " + algorithm + " : (" + state +
         ") -> (" + state + ", " + out + ")\n  return %0, %1 : " + state + ", " + out + "\n}\n";
}

TEST(RandomBits, SpecExampleThreeFry64) {
  const auto r =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<2x2xui64>"), {state_of({1, 2})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{1, 6}));
  EXPECT_EQ(values<uint64_t>(r[1]),
            (std::vector<uint64_t>{9236835810183407956ull, 16087790271692313299ull,
                                   18212823393184779219ull, 2658481902456610144ull}));
}

// Words of counter c under key 0 (the block function is checked above).
uint32_t word(uint64_t c, int w) {
  return threefry2x32({uint32_t(c), uint32_t(c >> 32)}, {0, 0})[w];
}

TEST(RandomBits, ThreeFry32HalvesTheFirstEvenAxis) {
  // 3x2: axis 1 is halved, so row i is the two words of counter i; the state advances by 3.
  auto r = run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<3x2xui32>"), {state_of({0, 0})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{0, 3}));
  const auto bits = values<uint32_t>(r[1]);
  EXPECT_EQ(bits[0], 0x6b200159u);
  EXPECT_EQ(bits[1], 0x99ba4efeu);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(bits[2 * i], word(i, 0));
    EXPECT_EQ(bits[2 * i + 1], word(i, 1));
  }
  // 2x3: axis 0 is halved: column j is counter j, row i its word i.
  r = run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<2x3xi32>"), {state_of({0, 0})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{0, 3}));
  const auto cols = values<int32_t>(r[1]);
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(uint32_t(cols[j]), word(j, 0));
    EXPECT_EQ(uint32_t(cols[3 + j]), word(j, 1));
  }
}

TEST(RandomBits, ThreeFry32WithoutAnEvenAxisHalvesTheLongest) {
  // 3x5: axis 1 (5) is halved to 3: element (i, j) is word j % 2 of counter 3 i + j / 2.
  const auto r =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<3x5xui32>"), {state_of({0, 10})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{0, 19}));
  const auto bits = values<uint32_t>(r[1]);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) EXPECT_EQ(bits[5 * i + j], word(10 + 3 * i + j / 2, j % 2));
  }
  // A scalar is word 0 of one counter; 16-bit elements keep the low half of their word.
  const auto s =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<ui16>"), {state_of({0, 7})});
  EXPECT_EQ(values<uint64_t>(s[0]), (std::vector<uint64_t>{0, 8}));
  EXPECT_EQ(values<uint16_t>(s[1])[0], uint16_t(word(7, 0)));
}

TEST(RandomBits, PhiloxLaysBlocksOutInOrder) {
  const uint64_t key = 0x0123456789abcdefull;
  const Words2 k{uint32_t(key), uint32_t(key >> 32)};
  // A 2-element state: the counter's low half is s[1], its high half the key.
  auto r = run(rng_program("PHILOX", "tensor<2xui64>", "tensor<5xui32>"), {state_of({key, 4})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{key, 6}));
  auto bits = values<uint32_t>(r[1]);
  const Words4 b0 = philox4x32({4, 0, k[0], k[1]}, k);
  const Words4 b1 = philox4x32({5, 0, k[0], k[1]}, k);
  EXPECT_EQ(bits, (std::vector<uint32_t>{b0[0], b0[1], b0[2], b0[3], b1[0]}));
  // The generic form names the attribute rng_algorithm.
  const std::string generic =
      "func.func @main(%s: tensor<2xui64>) -> tensor<5xui32> {\n"
      "  %0, %1 = \"stablehlo.rng_bit_generator\"(%s) <{rng_algorithm = "
      "#stablehlo<rng_algorithm PHILOX>}> : (tensor<2xui64>) -> (tensor<2xui64>, "
      "tensor<5xui32>)\n  return %1 : tensor<5xui32>\n}\n";
  EXPECT_EQ(values<uint32_t>(run(generic, {state_of({key, 4})})[0]), bits);
  // DEFAULT is PHILOX.
  r = run(rng_program("DEFAULT", "tensor<2xui64>", "tensor<5xui32>"), {state_of({key, 4})});
  EXPECT_EQ(values<uint32_t>(r[1]), bits);
  // A 3-element state: a 128-bit counter (s[1] low, s[2] high) that carries; 64-bit elements
  // join words (0, 1) and (2, 3).
  const uint64_t max = ~0ull;
  r = run(rng_program("PHILOX", "tensor<3xui64>", "tensor<3xui64>"), {state_of({key, max, 5})});
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{key, 1, 6}));
  const Words4 c0 = philox4x32({~0u, ~0u, 5, 0}, k);
  const Words4 c1 = philox4x32({0, 0, 6, 0}, k);
  const auto join = [](uint32_t lo, uint32_t hi) { return uint64_t(lo) | (uint64_t(hi) << 32); };
  EXPECT_EQ(values<uint64_t>(r[1]),
            (std::vector<uint64_t>{join(c0[0], c0[1]), join(c0[2], c0[3]), join(c1[0], c1[1])}));
}

TEST(RandomBits, LargeOutputsDrawnInParallelKeepTheLayout) {
  // 2^18 blocks: enough work for the parallel loop. Every element is checked.
  const auto r =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<512x513xui32>"), {state_of({5, 1})});
  const auto bits = values<uint32_t>(r[1]);
  const Words2 k{5, 0};
  size_t wrong = 0;
  for (uint64_t i = 0; i < 256; ++i) {  // axis 0 (512) is halved: counter 1 + 513 i + j
    for (uint64_t j = 0; j < 513; ++j) {
      const auto w = threefry2x32({uint32_t(1 + 513 * i + j), 0}, k);
      wrong += bits[(2 * i) * 513 + j] != w[0];
      wrong += bits[(2 * i + 1) * 513 + j] != w[1];
    }
  }
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(values<uint64_t>(r[0]), (std::vector<uint64_t>{5, 1 + 256 * 513}));
  const auto p =
      run(rng_program("PHILOX", "tensor<2xui64>", "tensor<600000xui32>"), {state_of({5, 1})});
  const auto pb = values<uint32_t>(p[1]);
  wrong = 0;
  for (uint32_t b = 0; b < 150000; ++b) {
    const auto w = philox4x32({1 + b, 0, 5, 0}, k);
    for (int j = 0; j < 4; ++j) wrong += pb[4 * b + j] != w[j];
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(RandomBits, FloatOutputsHoldTheBitsOfTheirWidth) {
  const auto u =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<4xui32>"), {state_of({3, 9})});
  const auto f =
      run(rng_program("THREE_FRY", "tensor<2xui64>", "tensor<4xf32>"), {state_of({3, 9})});
  const auto ub = values<uint32_t>(u[1]);
  const auto fb = values<uint32_t>(f[1]);
  EXPECT_EQ(ub, fb);
}

TEST(RandomBits, CompileErrors) {
  EXPECT_EQ(compile_error(rng_program("THREE_FRY", "tensor<3xui64>", "tensor<4xui32>")),
            "2:12: 'stablehlo.rng_bit_generator' cannot give tensor<4xui32> from tensor<3xui64>: "
            "THREE_FRY needs an initial state of 2 elements");
  EXPECT_EQ(compile_error(rng_program("PHILOX", "tensor<4xui64>", "tensor<4xui32>")),
            "2:12: 'stablehlo.rng_bit_generator' cannot give tensor<4xui32> from tensor<4xui64>: "
            "PHILOX needs an initial state of 2 or 3 elements");
  EXPECT_EQ(compile_error(rng_program("PHILOX", "tensor<2xui64>", "tensor<4xi1>")),
            "2:12: 'stablehlo.rng_bit_generator' cannot give tensor<4xi1> from tensor<2xui64>: "
            "the output must have an integer or floating-point element type");
  EXPECT_EQ(compile_error(rng_program("PHILOX", "tensor<2xi64>", "tensor<4xui32>")),
            "2:12: 'stablehlo.rng_bit_generator' initial state tensor<2xi64> must be a 1-d ui64 "
            "tensor");
  EXPECT_EQ(compile_error(rng_program("MERSENNE", "tensor<2xui64>", "tensor<4xui32>")),
            "2:12: 'stablehlo.rng_bit_generator' has an unknown rng_algorithm 'MERSENNE'");
  const std::string wrong_state =
      "func.func @main(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
      "  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> "
      "(tensor<3xui64>, tensor<4xui32>)\n  return %1 : tensor<4xui32>\n}\n";
  EXPECT_EQ(compile_error(wrong_state),
            "2:12: 'stablehlo.rng_bit_generator' result 1 type tensor<3xui64> should be "
            "tensor<2xui64>");
}

}  // namespace
}  // namespace ndbuf::program
