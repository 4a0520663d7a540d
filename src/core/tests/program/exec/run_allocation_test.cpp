// A steady-state execute allocates its results alone: the intermediates of a run take the
// storages the run before left free (Executable::kept_pool), and the results handed out are
// the caller's alone, never written by a later run.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ndbuf/memory/storage_pool.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/exec/fusion_checks.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::ramp;

// Products, a tanh and a row sum: values no step can compute in its operands' memory (the
// inputs are the caller's), so each is an intermediate of its own.
const char* const kChain = R"(
func.func @main(%x: tensor<8x8xf32>, %y: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8xf32>) {
  %p = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %q = stablehlo.dot_general %p, %x, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = stablehlo.tanh %q : tensor<8x8xf32>
  %r = stablehlo.dot_general %h, %y, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%h init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %r, %s : tensor<8x8xf32>, tensor<8xf32>
}
)";

using Matrix = std::vector<double>;  // 8 x 8, row-major

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix c(64, 0.0);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      for (int k = 0; k < 8; ++k) c[i * 8 + j] += a[i * 8 + k] * b[k * 8 + j];
    }
  }
  return c;
}

Matrix values_of(const Tensor& t) {
  const auto* v = static_cast<const float*>(t.data());
  return Matrix(v, v + t.numel());
}

// kChain's results computed in double precision, loop by loop.
void expect_chain(const std::vector<Tensor>& got, const Tensor& x_tensor, const Tensor& y_tensor) {
  const Matrix x = values_of(x_tensor), y = values_of(y_tensor);
  Matrix h = product(product(x, y), x);
  for (double& v : h) v = std::tanh(v);
  const Matrix r = product(h, y);
  ASSERT_EQ(got.size(), 2u);
  const Matrix r_got = values_of(got[0]), s_got = values_of(got[1]);
  for (int k = 0; k < 64; ++k) EXPECT_NEAR(r_got[k], r[k], 1e-4 * (1 + std::fabs(r[k]))) << k;
  for (int i = 0; i < 8; ++i) {
    double s = 0;
    for (int j = 0; j < 8; ++j) s += h[i * 8 + j];
    EXPECT_NEAR(s_got[i], s, 1e-5 * 8) << i;
  }
}

TEST(RunAllocation, SteadyStateRunAllocatesOnlyItsResults) {
  const auto executable = compile(kChain);
  const Tensor x = f32({8, 8}, ramp(64, 0.3f, 0.0f)), y = f32({8, 8}, ramp(64, 0.7f, 0.1f));
  int64_t before = host_allocation_count();
  const std::vector<Tensor> first = execute(*executable, {x, y});
  const int64_t first_run = host_allocation_count() - before;
  EXPECT_GT(first_run, 2) << "the first run makes its intermediates too";
  const int64_t copies = result_copy_count();
  for (int run = 0; run < 3; ++run) {
    before = host_allocation_count();
    const std::vector<Tensor> again = execute(*executable, {x, y});
    EXPECT_EQ(host_allocation_count() - before, 2) << "run " << run + 2;
    EXPECT_EQ(result_copy_count(), copies) << "results are handed out, not copied";
    expect_chain(again, x, y);
  }
  expect_chain(first, x, y);
}

// Results handed out are never memory a later run writes: the first run's values survive runs
// on other inputs, whose own values are right too.
TEST(RunAllocation, LaterRunsLeaveEarlierResultsAlone) {
  const auto executable = compile(kChain);
  const Tensor x1 = f32({8, 8}, ramp(64, 0.3f, 0.0f)), y1 = f32({8, 8}, ramp(64, 0.7f, 0.1f));
  const Tensor x2 = f32({8, 8}, ramp(64, 0.2f, -0.1f)), y2 = f32({8, 8}, ramp(64, 0.5f, 0.2f));
  const std::vector<Tensor> first = execute(*executable, {x1, y1});
  std::vector<std::vector<Tensor>> later;
  for (int run = 0; run < 4; ++run) later.push_back(execute(*executable, {x2, y2}));
  expect_chain(first, x1, y1);
  for (const std::vector<Tensor>& results : later) expect_chain(results, x2, y2);
  for (size_t k = 1; k < later.size(); ++k) {
    EXPECT_NE(later[k][0].data(), later[k - 1][0].data());
    EXPECT_NE(later[k][1].data(), later[k - 1][1].data());
  }
}

// A pool lets go of one storage on request (a result about to be handed out).
TEST(RunAllocation, PoolForgetsWhatItIsAskedTo) {
  StoragePool pool;
  std::shared_ptr<Storage> kept = pool.take(64, Device{});
  std::shared_ptr<Storage> result = pool.take(64, Device{});
  EXPECT_EQ(pool.kept_bytes(), 128u);
  pool.forget(result.get());
  EXPECT_FALSE(pool.holds(result.get()));
  EXPECT_TRUE(pool.holds(kept.get()));
  EXPECT_EQ(result.use_count(), 1);
  EXPECT_EQ(pool.kept_bytes(), 64u);
  pool.forget(result.get());  // no longer held: nothing happens
  EXPECT_EQ(pool.kept_bytes(), 64u);
  const Storage* address = result.get();
  result.reset();
  kept.reset();
  EXPECT_NE(pool.take(64, Device{}).get(), address);  // the kept one, not the forgotten
}

}  // namespace
}  // namespace ndbuf::program
