// The backend seam (program/exec/backend.hpp): a backend of the tests' own, handed to compile
// through CompileOptions::backend, runs the ops it lowers with its own run functions, gets the
// module the passes rewrote (with no change to them), and refuses what it cannot run with an
// error naming the op and itself.
#include "program/exec/backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/program.hpp"
#include "program/registry/op_registry.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

// Runs f32 adds with a loop of its own (counting its runs), hands every other op to the CPU
// backend's lowering, refuses `refused`, fuses nothing and never writes over an operand.
class TallyBackend final : public Backend {
 public:
  explicit TallyBackend(OpId refused = OpId::kUnknown) : refused_(refused) {}

  std::string_view name() const override { return "tally"; }

  OpFn lower(const Op& op, const Planning& planning) const override {
    lowered_.push_back(std::string(op_row(op.id).name));
    if (op.id == refused_) return {};
    if (op.id != OpId::kAdd) return cpu_backend().lower(op, planning);
    std::atomic<int>* runs = &adds_run_;
    std::atomic<int>* threads = &threads_seen_;
    return [runs, threads](Interpreter& in, const Values& args) -> Values {
      ++*runs;
      threads->store(max_threads());
      const Tensor a = make_dense(to_host(args[0].get()), Order::kRowMajor);
      const Tensor b = make_dense(to_host(args[1].get()), Order::kRowMajor);
      Tensor out = Tensor::allocate(DType::kF32, a.shape(), Order::kRowMajor, in.context().device);
      const auto* x = static_cast<const float*>(a.data());
      const auto* y = static_cast<const float*>(b.data());
      auto* z = static_cast<float*>(out.data());
      for (int64_t i = 0; i < out.numel(); ++i) z[i] = x[i] + y[i];
      return one_value(std::move(out));
    };
  }

  std::vector<Step> fuse(const Region&, std::vector<Step> steps, const PlanPasses&,
                         const RegionFacts&) const override {
    return steps;
  }

  bool may_write_over(const Step&, size_t) const override { return false; }

  int adds_run() const { return adds_run_.load(); }
  // max_threads() as the latest add's run function saw it.
  int threads_seen() const { return threads_seen_.load(); }
  const std::vector<std::string>& lowered() const { return lowered_; }

 private:
  OpId refused_;
  mutable std::atomic<int> adds_run_{0};
  mutable std::atomic<int> threads_seen_{0};
  mutable std::vector<std::string> lowered_;
};

// (x * y + x) with a transpose pair the canonicalisation pass removes before lowering.
const char* kProgram = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %u = stablehlo.transpose %t, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %m = stablehlo.multiply %u, %y : tensor<2x3xf32>
  %s = stablehlo.add %m, %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
)";

// kProgram compiled for a tally backend, and inputs for it.
struct TalliedProgram {
  TallyBackend tally;
  std::shared_ptr<const Executable> executable;
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = f32({2, 3}, {0.5f, -1, 2, 10, 0, -3});

  TalliedProgram() {
    CompileOptions options;
    options.backend = &tally;
    executable = compile(kProgram, Device{}, options);
  }
};

TEST(BackendTest, AnotherBackendRunsTheOpsItLowers) {
  TalliedProgram program;
  const TallyBackend& tally = program.tally;
  for (int run = 1; run <= 3; ++run) {
    const std::vector<Tensor> out = execute(*program.executable, {program.x, program.y});
    ASSERT_EQ(out.size(), 1u);
    // x * y + x by hand.
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1.5f, 0, 9, 44, 5, -12}));
    EXPECT_EQ(tally.adds_run(), run);
  }
  // The passes ran as for the CPU backend: the transposes were gone before lowering.
  EXPECT_EQ(tally.lowered(), (std::vector<std::string>{"stablehlo.multiply", "stablehlo.add"}));
}

// The thread count of a run is its context's (ExecuteOptions::threads): what the kernels below
// a run function read, whatever the calling thread's own count.
TEST(BackendTest, RunFunctionsRunWithTheirContextsThreads) {
  TalliedProgram program;
  const int own = max_threads();
  for (int threads : {1, 2}) {
    ExecuteOptions run;
    run.threads = threads;
    (void)execute(*program.executable, {program.x, program.y}, run);
    EXPECT_EQ(program.tally.threads_seen(), std::min(threads, usable_processors())) << threads;
    EXPECT_EQ(max_threads(), own) << "the budget ends with the run";
  }
  (void)execute(*program.executable, {program.x, program.y});
  EXPECT_EQ(program.tally.threads_seen(), own);
}

TEST(BackendTest, TheCpuBackendFusesWhatAnotherRunsStepByStep) {
  TallyBackend tally;
  CompileOptions options;
  options.backend = &tally;
  const std::string plain = plan_text(*compile(kProgram, Device{}, options));
  const std::string fused = plan_text(*compile(kProgram));
  EXPECT_EQ(plain.find("fusion of"), std::string::npos) << plain;
  EXPECT_NE(fused.find("fusion of"), std::string::npos) << fused;
}

TEST(BackendTest, AnOpTheBackendCannotRunIsACompileError) {
  TallyBackend refusing(OpId::kMultiply);
  CompileOptions options;
  options.backend = &refusing;
  try {
    compile(kProgram, Device{}, options);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument) << e.what();
    EXPECT_EQ(std::string(e.what()),
              "5:8: op 'stablehlo.multiply' is not supported by the tally backend");
  }
}

}  // namespace
}  // namespace ndbuf::program
