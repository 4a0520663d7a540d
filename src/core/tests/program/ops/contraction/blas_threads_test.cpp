// The BLAS thread policy: the setter of the BLAS linked here is found and set from the
// runtime's thread count (read back through the BLAS's own getter), and products leave it at
// that count (batches run in parallel set it to one thread only while they run).
#include "program/kernels/blas_threads.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_general.hpp"

namespace ndbuf::program {
namespace {

bool has_thread_setter() { return std::string(blas_thread_library()) != ""; }

// Restores the thread setting and the BLAS's count after each test.
class BlasThreadsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    set_thread_setting(0);
    sync_blas_threads();
  }
};

TEST_F(BlasThreadsTest, FindsOpenBlasWhenOpenBlasIsLoaded) {
  // Independent evidence of OpenBLAS in the process: its configuration string.
  if (dlsym(RTLD_DEFAULT, "openblas_get_config") == nullptr) {
    GTEST_SKIP() << "the BLAS linked here is not OpenBLAS";
  }
  EXPECT_STREQ(blas_thread_library(), "openblas");
}

TEST_F(BlasThreadsTest, SetterIsCalledWithTheCount) {
  if (!has_thread_setter()) GTEST_SKIP() << "the BLAS linked here has no thread setter";
  EXPECT_EQ(set_blas_threads(1), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(set_blas_threads(2), 2);
  EXPECT_EQ(blas_threads(), 2);
  EXPECT_EQ(set_blas_threads(2), 2);  // unchanged: no call, the same answer
  EXPECT_EQ(set_blas_threads(1), 1);
  EXPECT_EQ(blas_threads(), 1);
  EXPECT_EQ(set_blas_threads(0), 0);  // not a count: nothing set
  EXPECT_EQ(blas_threads(), 1);
}

TEST_F(BlasThreadsTest, FollowsTheThreadSetting) {
  if (!has_thread_setter()) GTEST_SKIP() << "the BLAS linked here has no thread setter";
  set_thread_setting(1);
  sync_blas_threads();
  EXPECT_EQ(blas_threads(), 1);
  set_thread_setting(2);
  sync_blas_threads();
  EXPECT_EQ(blas_threads(), max_threads());
#ifdef _OPENMP  // without OpenMP (clang's instrumented build) the runtime has one thread
  EXPECT_EQ(max_threads(), std::min(2, omp_get_num_procs()));
#endif
}

TEST_F(BlasThreadsTest, SettingTheBlasDoesNotChangeTheDefault) {
  if (!has_thread_setter()) GTEST_SKIP() << "the BLAS linked here has no thread setter";
  const int default_threads = max_threads();
  set_blas_threads(1);  // OpenBLAS's OpenMP build also sets this thread's OpenMP count
  EXPECT_EQ(max_threads(), default_threads);
}

Tensor filled(const Shape& shape, float value) {
  Tensor t = Tensor::allocate(DType::kF32, shape, Order::kRowMajor);
  auto* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value;
  return t;
}

TEST_F(BlasThreadsTest, BatchesInParallelRunSingleThreadedGemms) {
  if (!has_thread_setter()) GTEST_SKIP() << "the BLAS linked here has no thread setter";
  set_thread_setting(2);
  // 64 products of 128 x 64 by 64 x 128 (bytes enough for threads): batches share the cores.
  DotDimensions dims;
  dims.lhs_batching_dimensions = {0};
  dims.rhs_batching_dimensions = {0};
  dims.lhs_contracting_dimensions = {2};
  dims.rhs_contracting_dimensions = {1};
  const Tensor c =
      dot_general(filled({64, 128, 64}, 0.5f), filled({64, 64, 128}, 2.0f), dims, DType::kF32);
  EXPECT_EQ(static_cast<const float*>(c.data())[c.numel() - 1], 64.0f);
  // The BLAS ran single-threaded inside the batches' loop and is back at the runtime's count.
  EXPECT_EQ(blas_threads(), max_threads());
  set_thread_setting(1);
  const Tensor big = dot(filled({512, 512}, 1.0f), filled({512, 512}, 1.0f), DType::kF32);
  EXPECT_EQ(static_cast<const float*>(big.data())[0], 512.0f);
  EXPECT_EQ(blas_threads(), 1);
}

}  // namespace
}  // namespace ndbuf::program
