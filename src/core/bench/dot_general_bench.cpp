// dot_general on f32 1024 x 1024 x 1024 side by side with OpenBLAS's cblas_sgemm at the same
// thread count (both set explicitly), in GFLOP/s; prints the ratio ours / OpenBLAS at the end
// against the target 0.8 (PROGRAMS.md section 5).
//
//   make bench   (or: cmake --build build/bench --target dot_general_bench &&
//                 build/bench/dot_general_bench; NDBUF_BENCH_THREADS=n picks the thread count)
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/ops/contraction/dot_general.hpp"

namespace {

constexpr int64_t kSize = 1024;
constexpr double kGflop = 2.0 * kSize * kSize * kSize * 1e-9;

ndbuf::Tensor random_matrix(unsigned seed) {
  ndbuf::Tensor t =
      ndbuf::Tensor::allocate(ndbuf::DType::kF32, {kSize, kSize}, ndbuf::Order::kRowMajor);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  auto* data = static_cast<float*>(t.data());
  for (int64_t i = 0; i < kSize * kSize; ++i) data[i] = u(rng);
  return t;
}

void set_rate(benchmark::State& state) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(kGflop, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_dot_general(benchmark::State& state) {
  const ndbuf::Tensor a = random_matrix(1), b = random_matrix(2);
  for (auto _ : state) {
    ndbuf::Tensor c = ndbuf::program::dot(a, b, ndbuf::DType::kF32);
    benchmark::DoNotOptimize(c.data());
  }
  set_rate(state);
}

void BM_cblas_sgemm(benchmark::State& state) {
  const ndbuf::Tensor a = random_matrix(1), b = random_matrix(2);
  // A fresh result per call, as dot_general allocates one.
  for (auto _ : state) {
    ndbuf::Tensor c =
        ndbuf::Tensor::allocate(ndbuf::DType::kF32, {kSize, kSize}, ndbuf::Order::kRowMajor);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kSize, kSize, kSize, 1.0f,
                static_cast<const float*>(a.data()), kSize, static_cast<const float*>(b.data()),
                kSize, 0.0f, static_cast<float*>(c.data()), kSize);
    benchmark::DoNotOptimize(c.data());
  }
  set_rate(state);
}

BENCHMARK(BM_dot_general)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3);
BENCHMARK(BM_cblas_sgemm)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3);

// The console report, keeping each repetition's GFLOP/s by benchmark.
class RateReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      auto it = run.counters.find("GFLOP/s");
      if (it != run.counters.end()) rates_[run.run_name.function_name].push_back(it->second);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::vector<double> rates(const std::string& name) const {
    auto it = rates_.find(name);
    return it == rates_.end() ? std::vector<double>{} : it->second;
  }

 private:
  std::map<std::string, std::vector<double>> rates_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("NDBUF_BENCH_THREADS");
  const int threads = env != nullptr ? std::max(1, std::atoi(env)) : omp_get_max_threads();
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
  benchmark::Initialize(&argc, argv);
  RateReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto ours = reporter.rates("BM_dot_general"), theirs = reporter.rates("BM_cblas_sgemm");
  if (ours.empty() || theirs.empty()) return 0;
  const double ratio = median(ours) / median(theirs);
  std::printf(
      "\ndot_general f32 1024^3, %d threads: %.1f-%.1f GFLOP/s; cblas_sgemm %.1f-%.1f GFLOP/s\n"
      "ratio dot_general / cblas_sgemm (medians): %.2f (target >= 0.8) %s\n",
      threads, *std::min_element(ours.begin(), ours.end()),
      *std::max_element(ours.begin(), ours.end()), *std::min_element(theirs.begin(), theirs.end()),
      *std::max_element(theirs.begin(), theirs.end()), ratio, ratio >= 0.8 ? "yes" : "NO");
  return 0;
}
