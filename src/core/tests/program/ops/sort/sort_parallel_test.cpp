// Large sorts, whose keys are ordered by several threads: the radix sort cut into runs against
// std::stable_sort, and whole programs past the parallel threshold against stable references
// written here (ties, NaN, -0 and payload operands).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "ndbuf/program/program.hpp"
#include "program/ops/sort/radix_order.hpp"
#include "tests/program/jax_programs.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

template <class U>
std::vector<int64_t> stable_reference(const std::vector<U>& keys) {
  std::vector<int64_t> perm(keys.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  return perm;
}

template <class U>
void expect_radix_matches(const std::vector<U>& keys, const std::string& what) {
  const std::vector<int64_t> want = stable_reference(keys);
  for (int parts : {1, 2, 3, 7}) {
    std::vector<U> work = keys;
    std::vector<int64_t> perm;
    radix_order(work, perm, parts);
    EXPECT_EQ(perm, want) << what << ", n = " << keys.size() << ", " << parts << " runs";
  }
}

TEST(ParallelSort, RadixRunsGiveTheStableOrderWhateverTheirNumber) {
  std::mt19937 rng(5);
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{8195}, size_t{50001}}) {
    std::vector<uint32_t> ties(n), wide(n), same(n, 77u), high(n);
    for (size_t i = 0; i < n; ++i) {
      ties[i] = static_cast<uint32_t>(rng() % 7);
      wide[i] = static_cast<uint32_t>(rng());
      high[i] = static_cast<uint32_t>(rng() % 5) << 27;  // one digit varies: a single pass
    }
    expect_radix_matches(ties, "seven values");
    expect_radix_matches(wide, "32-bit keys");
    expect_radix_matches(same, "one value");
    expect_radix_matches(high, "top digit only");
    std::vector<uint64_t> wide64(n);
    for (size_t i = 0; i < n; ++i) wide64[i] = (uint64_t{rng()} << 32 | rng()) >> (rng() % 40);
    expect_radix_matches(wide64, "64-bit keys");
  }
}

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Many ties, both NaNs, both zeros, infinities and distinct values.
std::vector<float> awkward(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t p = rng() % 16;
    v[i] = p == 0   ? kNaN
           : p == 1 ? -kNaN
           : p == 2 ? -0.0f
           : p == 3 ? 0.0f
           : p == 4 ? -kInf
           : p < 9  ? static_cast<float>(static_cast<int>(rng() % 9) - 4)
                    : std::ldexp(static_cast<float>(rng() % 100000) - 50000.0f, -7);
  }
  return v;
}

// jnp.sort's order: NaN (either sign) after everything, -0 ties +0, stable.
std::vector<int32_t> jax_order(const std::vector<float>& v) {
  std::vector<int32_t> perm(v.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int32_t a, int32_t b) {
    if (std::isnan(v[a])) return false;
    return std::isnan(v[b]) || v[a] < v[b];
  });
  return perm;
}

std::vector<uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

TEST(ParallelSort, JaxSortAndArgsortPastTheThresholdMatchAStableReference) {
  for (int64_t n : {int64_t{140001}, int64_t{400000}}) {
    const std::vector<float> v = awkward(n, static_cast<uint32_t>(n));
    const std::vector<int32_t> want = jax_order(v);
    const auto order = execute(*compile(jax_sort(n, "f32", "0x7FC00000", true)), {f32({n}, v)});
    EXPECT_EQ(values<int32_t>(order[0]), want) << "argsort of " << n;
    const auto sorted = execute(*compile(jax_sort(n, "f32", "0x7FC00000", false)), {f32({n}, v)});
    const std::vector<uint32_t> in = bits_of(v), got = values<uint32_t>(sorted[0]);
    std::vector<uint32_t> expected(n);
    for (int64_t k = 0; k < n; ++k) expected[k] = in[want[k]];
    EXPECT_EQ(got, expected) << "sort of " << n;
  }
}

// A key comparator (negated keys, IEEE "<": descending, -0 ties +0) over f64 keys moving an
// i64 and an f32 payload, along dim 1 of a 2 x n tensor (two slices, each past the threshold).
TEST(ParallelSort, NegatedF64KeysMoveTwoPayloadsStably) {
  const int64_t n = 150000;
  std::mt19937 rng(11);
  std::vector<double> keys(2 * n);
  std::vector<int64_t> ids(2 * n);
  std::vector<float> tags(2 * n);
  for (int64_t i = 0; i < 2 * n; ++i) {
    const uint32_t p = rng() % 8;
    keys[i] = p == 0   ? -0.0
              : p == 1 ? 0.0
                       : static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8;
    ids[i] = i;
    tags[i] = static_cast<float>(i % 1000) - 0.5f;
  }
  const std::string shape = "2x" + std::to_string(n);
  const std::string kd = "tensor<" + shape + "xf64>", ki = "tensor<" + shape + "xi64>",
                    kf = "tensor<" + shape + "xf32>", e = "tensor<f64>";
  const std::string text =
      "func.func @main(%x: " + kd + ", %y: " + ki + ", %z: " + kf + ") -> (" + kd + ", " + ki +
      ", " + kf + ") {\n  %r:3 = \"stablehlo.sort\"(%x, %y, %z) ({\n  ^bb0(%a: " + e +
      ", %b: " + e + ", %c: tensor<i64>, %d: tensor<i64>, %f: tensor<f32>, %g: tensor<f32>):\n" +
      "    %na = \"stablehlo.negate\"(%a) : (" + e + ") -> " + e + "\n" +
      "    %nb = \"stablehlo.negate\"(%b) : (" + e + ") -> " + e + "\n" +
      "    %lt = " + jax_compare("%na", "%nb", "LT", "FLOAT", e) +
      "\n    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n  }) {dimension = 1 : i64, "
      "is_stable = true} : (" +
      kd + ", " + ki + ", " + kf + ") -> (" + kd + ", " + ki + ", " + kf +
      ")\n  return %r#0, %r#1, %r#2 : " + kd + ", " + ki + ", " + kf + "\n}\n";
  const auto r = execute(*compile(text), {f64({2, n}, keys), i64({2, n}, ids), f32({2, n}, tags)});
  const auto got_keys = values<uint64_t>(r[0]);
  const auto got_ids = values<int64_t>(r[1]);
  const auto got_tags = values<float>(r[2]);
  for (int64_t row = 0; row < 2; ++row) {
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), row * n);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return -keys[a] < -keys[b]; });
    for (int64_t k = 0; k < n; ++k) {
      uint64_t want_bits;
      std::memcpy(&want_bits, &keys[perm[k]], sizeof want_bits);
      const int64_t at = row * n + k;
      ASSERT_EQ(got_keys[at], want_bits) << "row " << row << ", position " << k;
      ASSERT_EQ(got_ids[at], perm[k]) << "row " << row << ", position " << k;
      ASSERT_EQ(got_tags[at], tags[perm[k]]) << "row " << row << ", position " << k;
    }
  }
}

}  // namespace
}  // namespace ndbuf::program
