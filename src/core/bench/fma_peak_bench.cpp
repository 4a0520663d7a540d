// The machine's f32 multiply-add peak, the ceiling for the compute-bound rows of bench/peer
// (matrix products, the MLP forward, the training steps of width 160): a row's floor is its
// multiply-adds at this rate, whatever library computes them. Each thread runs twelve
// independent chains of fused multiply-adds (enough to cover the instruction's latency on
// every recent x86 core), so the figure is the core's issue rate, not a dependency chain; in
// 256-bit registers (AVX2) and in 512-bit ones (AVX-512, where the CPU has it: cores that
// split a 512-bit operation in two, as Zen 4 does, give the same figure for both).
//
//   cmake -S src/core -B build-bench -DNDBUF_BENCH=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target fma_peak_bench && build-bench/fma_peak_bench
//
// The "FLOP/s" counter is per benchmark (all threads together): compare the 1- and 2-thread
// rows against bench/peer's rows run with as many threads.
#include <benchmark/benchmark.h>

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace {

constexpr int kChains = 12;
constexpr int64_t kRoundsPerIteration = 1 << 16;

// The two loops differ only in register width; each is compiled for its instructions.
__attribute__((target("avx2,fma"))) float run_avx2(int64_t rounds) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 scale = _mm256_set1_ps(0.999999f);
  const __m256 shift = _mm256_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], scale, shift);
  }
  for (int c = 1; c < kChains; ++c) acc[0] = _mm256_add_ps(acc[0], acc[c]);
  return _mm256_cvtss_f32(acc[0]);
}

__attribute__((target("avx512f"))) float run_avx512(int64_t rounds) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * static_cast<float>(c));
  const __m512 scale = _mm512_set1_ps(0.999999f);
  const __m512 shift = _mm512_set1_ps(1e-7f);
  for (int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], scale, shift);
  }
  for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
  return _mm512_reduce_add_ps(acc[0]);
}

void run(benchmark::State& state, bool usable, float (*chains_of)(int64_t), int lanes) {
  if (!usable) {
    state.SkipWithError("this CPU lacks the instructions");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(chains_of(kRoundsPerIteration));
  // Two floating-point operations per lane of each multiply-add.
  const double flops_per_iteration =
      2.0 * lanes * kChains * static_cast<double>(kRoundsPerIteration);
  state.counters["FLOP/s"] = benchmark::Counter(
      flops_per_iteration * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_FmaPeakF32Avx2(benchmark::State& state) {
  run(state, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), run_avx2, 8);
}
void BM_FmaPeakF32Avx512(benchmark::State& state) {
  run(state, __builtin_cpu_supports("avx512f"), run_avx512, 16);
}
BENCHMARK(BM_FmaPeakF32Avx2)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_FmaPeakF32Avx512)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

#endif
