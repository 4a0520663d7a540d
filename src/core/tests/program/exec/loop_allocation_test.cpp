// A steady-state iteration of a while loop allocates no memory: its results take the storages
// of the iteration before (ndbuf/memory/storage_pool.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ndbuf/memory/storage_pool.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::ramp;

// A training-style loop: a batch of rows sliced from %x, a product with %w, a bias, tanh, a
// sum over the batch, an update of %w by the outer product of that sum with itself: the ops
// anvl's loops are made of (a fused group, a dot_general, a reduce, a dynamic_slice, a
// broadcast, scalar counters).
std::string training_loop(int iterations) {
  return R"(
func.func @main(%x: tensor<8x4xf32>, %w0: tensor<4x4xf32>, %b: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<f32>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %four = stablehlo.constant dense<4> : tensor<i64>
  %fzero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<)" +
         std::to_string(iterations) + R"(> : tensor<i64>
  %r:3 = stablehlo.while(%i = %zero, %w = %w0, %l = %fzero) : tensor<i64>, tensor<4x4xf32>, tensor<f32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %k = stablehlo.remainder %i, %two : tensor<i64>
      %start = stablehlo.multiply %k, %four : tensor<i64>
      %xb = stablehlo.dynamic_slice %x, %start, %zero, sizes = [4, 4] : (tensor<8x4xf32>, tensor<i64>, tensor<i64>) -> tensor<4x4xf32>
      %z = stablehlo.dot_general %xb, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
      %a = stablehlo.add %z, %bb : tensor<4x4xf32>
      %h = stablehlo.tanh %a : tensor<4x4xf32>
      %s = stablehlo.reduce(%h init: %fzero) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
      %g = stablehlo.dot_general %s, %s, contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
      %lr = stablehlo.constant dense<0.001> : tensor<4x4xf32>
      %u = stablehlo.multiply %g, %lr : tensor<4x4xf32>
      %w2 = stablehlo.subtract %w, %u : tensor<4x4xf32>
      %loss = stablehlo.reduce(%s init: %fzero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
      %i2 = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %i2, %w2, %loss : tensor<i64>, tensor<4x4xf32>, tensor<f32>
    }
  return %r#1, %r#2 : tensor<4x4xf32>, tensor<f32>
}
)";
}

// Host storages one run of `text` allocates.
int64_t allocations_of(const std::string& text, const std::vector<Tensor>& inputs,
                       std::vector<Tensor>* results) {
  const auto executable = compile(text);
  const int64_t before = host_allocation_count();
  *results = execute(*executable, inputs);
  return host_allocation_count() - before;
}

TEST(LoopAllocation, SteadyStateIterationsAllocateNothing) {
  const std::vector<Tensor> inputs = {f32({8, 4}, ramp(32, 0.3f, 0.1f)),
                                      f32({4, 4}, ramp(16, 0.7f, -0.2f)),
                                      f32({4}, {0.1f, -0.1f, 0.2f, 0.0f})};
  std::vector<Tensor> short_run, long_run;
  const int64_t ten = allocations_of(training_loop(10), inputs, &short_run);
  const int64_t thousand_and_ten = allocations_of(training_loop(1010), inputs, &long_run);
  EXPECT_GT(ten, 0);
  EXPECT_EQ(thousand_and_ten, ten)
      << "1,000 more iterations allocated " << thousand_and_ten - ten << " storages";
  // The loop computed what it says: the same 10 iterations in double precision.
  const auto* x = static_cast<const float*>(inputs[0].data());
  const auto* w0 = static_cast<const float*>(inputs[1].data());
  const auto* b = static_cast<const float*>(inputs[2].data());
  std::vector<double> w(w0, w0 + 16);
  double loss = 0;
  for (int i = 0; i < 10; ++i) {
    std::vector<double> s(4, 0.0);
    for (int r = 0; r < 4; ++r) {
      for (int j = 0; j < 4; ++j) {
        double z = b[j];
        for (int p = 0; p < 4; ++p) z += x[((i % 2) * 4 + r) * 4 + p] * w[p * 4 + j];
        s[j] += std::tanh(z);
      }
    }
    loss = s[0] + s[1] + s[2] + s[3];
    for (int p = 0; p < 4; ++p) {
      for (int j = 0; j < 4; ++j) w[p * 4 + j] -= 0.001 * s[p] * s[j];
    }
  }
  const auto* got = static_cast<const float*>(short_run[0].data());
  for (int k = 0; k < 16; ++k) EXPECT_NEAR(got[k], w[k], 1e-5) << k;
  EXPECT_NEAR(*static_cast<const float*>(short_run[1].data()), loss, 1e-4);
}

// A pool hands a storage out again only once nothing else holds it.
TEST(LoopAllocation, PoolReusesOnlyWhatNothingElseHolds) {
  StoragePool pool;
  std::shared_ptr<Storage> first = pool.take(64, Device{});
  EXPECT_TRUE(pool.holds(first.get()));
  std::shared_ptr<Storage> second = pool.take(64, Device{});
  EXPECT_NE(second, first);  // first is still held here
  const Storage* address = first.get();
  first.reset();
  EXPECT_EQ(pool.take(64, Device{}).get(), address);
  EXPECT_EQ(pool.reused(), 1);
  EXPECT_NE(pool.take(128, Device{}).get(), address);  // another size
  const std::shared_ptr<Storage> large = pool.take(StoragePool::kMaxBytes, Device{});
  EXPECT_FALSE(pool.holds(large.get()));
  pool.clear();
  EXPECT_FALSE(pool.holds(second.get()));
  EXPECT_EQ(second.use_count(), 1);
}

}  // namespace
}  // namespace ndbuf::program
