// Printing cost must depend on what is printed, not on the size of the buffer (SPEC 2.7 and
// 8): formatting a 10^8-element f32 buffer should take as long as a 30-element one.
//
//   cmake -S src/core -B build-bench -DNDBUF_BENCH=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build-bench --target format_bench && build-bench/format_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>

#include "ndbuf/format/format_buffer.hpp"

namespace {

// One tensor per size, filled once (fractions, so the printer takes the fixed mode).
const ndbuf::Tensor& f32_tensor(const ndbuf::Shape& shape) {
  static std::map<ndbuf::Shape, ndbuf::Tensor> cache;
  auto it = cache.find(shape);
  if (it == cache.end()) {
    ndbuf::Tensor t =
        ndbuf::Tensor::allocate(ndbuf::DType::kF32, shape, ndbuf::Order::kColumnMajor);
    auto* data = static_cast<float*>(t.data());
    for (int64_t k = 0; k < t.numel(); ++k) data[k] = static_cast<float>(k % 1000) * 0.25f;
    it = cache.emplace(shape, std::move(t)).first;
  }
  return it->second;
}

void run(benchmark::State& state, const ndbuf::Shape& shape) {
  const ndbuf::Tensor& t = f32_tensor(shape);
  const ndbuf::BufferPrintOptions options;
  for (auto _ : state) {
    std::vector<std::string> lines = ndbuf::format_buffer(t, options);
    benchmark::DoNotOptimize(lines.data());
  }
  state.counters["elements"] = static_cast<double>(t.numel());
}

// A vector (printed as a column of 30 rows).
void BM_FormatVector(benchmark::State& state) { run(state, {state.range(0)}); }
BENCHMARK(BM_FormatVector)->Arg(30)->Arg(100000000)->Unit(benchmark::kMicrosecond);

// A 10^4 x 10^4 matrix: 30 rows of the first columns that fit the width.
void BM_FormatMatrix(benchmark::State& state) { run(state, {state.range(0), state.range(0)}); }
BENCHMARK(BM_FormatMatrix)->Arg(6)->Arg(10000)->Unit(benchmark::kMicrosecond);

// One row of 10^8 columns: 30 column chunks.
void BM_FormatWideRow(benchmark::State& state) { run(state, {1, state.range(0)}); }
BENCHMARK(BM_FormatWideRow)->Arg(30)->Arg(100000000)->Unit(benchmark::kMicrosecond);

}  // namespace
