// The executor of row-fused steps (row_fusion.hpp): blocks of whole rows on all threads; per
// block, the units in order over block-sized registers (one set per thread, made on its first
// block), a result register written straight into its output tensor.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>

#include "memory/element_cell.hpp"
#include "memory/stream_store.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/exec/leaf_feed.hpp"
#include "program/exec/row_fusion.hpp"
#include "program/exec/row_span_call.hpp"
#include "program/kernels/reduce_fast.hpp"
#include "program/kernels/thread_workers.hpp"

namespace ndbuf::program {
namespace {

// Elements of a full register: whole rows, about as many as an element-wise kernel's block.
constexpr int64_t kBlockElements = 16384;

std::atomic<int64_t> g_row_fused_runs{0};
std::atomic<int64_t> g_streamed_runs{0};

int64_t block_rows(const RowPlan& plan) {
  return std::clamp<int64_t>(kBlockElements / plan.cols, 1, std::max<int64_t>(1, plan.rows));
}

// A plan with what its runs derive from it alone, found once: each unit's span call, and the
// bytes a row moves through the registers (which sizes the parallelism).
struct RowProgram {
  RowPlan plan;
  std::vector<SpanCall> spans;  // [unit]
  int64_t bytes_per_row = 0;
};

RowProgram row_program(RowPlan plan) {
  RowProgram program{std::move(plan), {}, 0};
  for (const RowUnit& unit : program.plan.units) program.spans.push_back(span_call_of(unit));
  for (const RowRegister& reg : program.plan.registers) {
    program.bytes_per_row +=
        (reg.full ? program.plan.cols : 1) * static_cast<int64_t>(itemsize(reg.dtype));
  }
  return program;
}

// What one run reads: the leaves' sources and feeds per unit, the init values, the outputs.
struct RowRun {
  const RowPlan& plan;
  const std::vector<SpanCall>& spans;  // [unit]
  int64_t block;
  std::vector<std::vector<std::optional<LeafSource>>> sources;  // [unit][input]: kOutside's
  std::vector<std::vector<LeafFeed>> feeds;
  std::vector<std::optional<Tensor>> inits;  // [unit]: a reduction's init value, on the host
  // [unit]: a column-major operand a reduction folds front to back from its own memory.
  std::vector<std::optional<Tensor>> column_sources;
  std::vector<Tensor> outputs;
  std::vector<int> output_of;   // [register] -> index into outputs, or -1
  bool stream_outputs = false;  // span units write full output rows with stream_copy()
};

// One thread's registers and element tiles.
struct RowWorker {
  std::vector<std::unique_ptr<ElementTile>> tiles;    // [unit]
  std::vector<std::vector<unsigned char>> registers;  // [register], empty for outputs
  std::vector<std::vector<unsigned char>> spread;     // [unit]: a row register spread
  // [register]: where a loaded operand's lanes are this block (in place in the operand, or in
  // the register's own memory); nullptr for the others.
  std::vector<const unsigned char*> loaded;
  std::vector<unsigned char> staged_row;  // a row on its way to a streamed output
};

int64_t lanes_of(const RowRun& run, bool full) {
  return full ? run.block * run.plan.cols : run.block;
}

RowWorker make_worker(const RowRun& run) {
  RowWorker worker;
  const RowPlan& plan = run.plan;
  for (size_t u = 0; u < plan.units.size(); ++u) {
    const RowUnit& unit = plan.units[u];
    if (run.spans[u].usable()) {  // a fill row per operand
      worker.tiles.push_back(nullptr);
      worker.spread.emplace_back(2 * static_cast<size_t>(plan.cols) * itemsize(run.spans[u].dtype));
      continue;
    }
    worker.tiles.push_back(
        unit.kind != RowUnit::Kind::kElement
            ? nullptr
            : std::make_unique<ElementTile>(unit.program, lanes_of(run, unit.full)));
    size_t spread = 0;
    for (const RowInput& input : unit.inputs) {
      if (input.kind == RowInput::Kind::kRowBroadcast) {
        spread += static_cast<size_t>(lanes_of(run, true)) *
                  itemsize(plan.registers[static_cast<size_t>(input.reg)].dtype);
      }
    }
    worker.spread.emplace_back(spread);
  }
  for (size_t r = 0; r < plan.registers.size(); ++r) {
    const RowRegister& reg = plan.registers[r];
    const size_t bytes = run.output_of[r] >= 0
                             ? 0
                             : static_cast<size_t>(lanes_of(run, reg.full)) * itemsize(reg.dtype);
    worker.registers.emplace_back(bytes);
    worker.loaded.push_back(nullptr);
  }
  if (run.stream_outputs) worker.staged_row.resize(static_cast<size_t>(plan.cols) * sizeof(double));
  return worker;
}

// Register `r` of the block starting at row `first`: the worker's, or the output's rows.
unsigned char* register_at(const RowRun& run, RowWorker& worker, int r, int64_t first) {
  const RowRegister& reg = run.plan.registers[static_cast<size_t>(r)];
  const int output = run.output_of[static_cast<size_t>(r)];
  if (output < 0) return worker.registers[static_cast<size_t>(r)].data();
  const int64_t offset = reg.full ? first * run.plan.cols : first;
  return static_cast<unsigned char*>(run.outputs[static_cast<size_t>(output)].data()) +
         offset * static_cast<int64_t>(itemsize(reg.dtype));
}

// The lanes a unit reads from register `r`.
const unsigned char* read_at(const RowRun& run, RowWorker& worker, int r, int64_t first) {
  const unsigned char* loaded = worker.loaded[static_cast<size_t>(r)];
  return loaded != nullptr ? loaded : register_at(run, worker, r, first);
}

// Each of `rows` elements of `from` repeated `cols` times into `to` (omp simd: R's -O2 leaves
// std::fill scalar).
void spread_rows(const unsigned char* from, unsigned char* to, int64_t rows, int64_t cols,
                 size_t item) {
  with_cell(item, [&](auto cell) {
    using C = decltype(cell);
    const C* src = reinterpret_cast<const C*>(from);
    C* dst = reinterpret_cast<C*>(to);
    for (int64_t r = 0; r < rows; ++r) {
      const C value = src[r];
      C* row = dst + r * cols;
#pragma omp simd
      for (int64_t c = 0; c < cols; ++c) row[c] = value;
    }
  });
}

// The operands of a span unit's op for the block's row r (or the whole block when `row` < 0).
template <class T>
const T* span_operand(const RowRun& run, RowWorker& worker, const RowUnit& unit, int argument,
                      int64_t first, int64_t row, T* fill) {
  const RowInput& input = unit.inputs[static_cast<size_t>(argument)];
  const T* reg = reinterpret_cast<const T*>(read_at(run, worker, input.reg, first));
  if (input.kind == RowInput::Kind::kRegister) return row < 0 ? reg : reg + row * run.plan.cols;
#pragma omp simd
  for (int64_t c = 0; c < run.plan.cols; ++c) fill[c] = reg[row];
  return fill;
}

template <class T>
void run_span(const RowRun& run, RowWorker& worker, size_t u, int64_t first, int64_t rows) {
  const RowUnit& unit = run.plan.units[u];
  const SpanCall& call = run.spans[u];
  const ElementStep& step = unit.program.steps.back();
  T* out = reinterpret_cast<T*>(register_at(run, worker, unit.out, first));
  const bool by_row = std::any_of(unit.inputs.begin(), unit.inputs.end(), [](const RowInput& in) {
    return in.kind == RowInput::Kind::kRowBroadcast;
  });
  const int64_t cols = run.plan.cols;
  T* fills = reinterpret_cast<T*>(worker.spread[u].data());
  // A streamed output gets each row through the worker's staged row.
  const bool stream =
      unit.full && run.stream_outputs && run.output_of[static_cast<size_t>(unit.out)] >= 0;
  T* staged = reinterpret_cast<T*>(worker.staged_row.data());
  const auto row_out = [&](int64_t r) { return stream ? staged : out + r * cols; };
  const auto row_done = [&](int64_t r) {
    if (stream) stream_copy(out + r * cols, staged, static_cast<size_t>(cols) * sizeof(T));
  };
  const SpanKernels<T>& kernels = call.kernels<T>();
  if (const SpanScalarFn<T> f = kernels.scalar) {  // by_row: the scalar is the row's value
    const int side = call.scalar_operand;
    const auto input_reg = [&](int operand) {
      return unit.inputs[static_cast<size_t>(step.operands[static_cast<size_t>(operand)])].reg;
    };
    const T* span = reinterpret_cast<const T*>(read_at(run, worker, input_reg(1 - side), first));
    const T* values = reinterpret_cast<const T*>(read_at(run, worker, input_reg(side), first));
    for (int64_t r = 0; r < rows; ++r) {
      f(span + r * cols, values[r], row_out(r), cols);
      row_done(r);
    }
    return;
  }
  const bool per_row = by_row || stream;
  const int64_t pieces = per_row ? rows : 1;
  const int64_t count = per_row ? cols : unit.full ? rows * cols : rows;
  for (int64_t r = 0; r < pieces; ++r) {
    const int64_t row = per_row ? r : -1;
    const T* a = span_operand<T>(run, worker, unit, step.operands[0], first, row, fills);
    T* dst = per_row ? row_out(r) : out;
    if (const SpanUnaryFn<T> f = kernels.unary) {
      f(a, dst, count);
    } else {
      const T* b = span_operand<T>(run, worker, unit, step.operands[1], first, row, fills + cols);
      kernels.binary(a, b, dst, count);
    }
    if (per_row) row_done(r);
  }
}

void run_unit(const RowRun& run, RowWorker& worker, size_t u, int64_t first, int64_t rows) {
  const RowPlan& plan = run.plan;
  const RowUnit& unit = plan.units[u];
  if (unit.kind == RowUnit::Kind::kReduce) {
    const DType dtype = plan.registers[static_cast<size_t>(unit.in)].dtype;
    unsigned char* out = register_at(run, worker, unit.out, first);
    if (const std::optional<Tensor>& column = run.column_sources[u]) {
      const auto* from = static_cast<const unsigned char*>(column->storage()->data()) +
                         (column->offset() + first) * static_cast<int64_t>(itemsize(dtype));
      fold_columns(unit.body, dtype, from, rows, plan.cols, plan.rows, run.inits[u]->data(), out);
    } else {
      fold_rows(unit.body, dtype, read_at(run, worker, unit.in, first), rows, plan.cols,
                run.inits[u]->data(), out);
    }
    return;
  }
  if (unit.kind == RowUnit::Kind::kLoad) {
    const int64_t count = rows * plan.cols;
    worker.loaded[static_cast<size_t>(unit.out)] = static_cast<const unsigned char*>(
        feed_lanes(run.feeds[u][0], plan.full_shape, first * plan.cols, count,
                   worker.registers[static_cast<size_t>(unit.out)].data()));
    return;
  }
  if (run.spans[u].usable()) {
    if (run.spans[u].dtype == DType::kF32) return run_span<float>(run, worker, u, first, rows);
    return run_span<double>(run, worker, u, first, rows);
  }
  ElementTile& tile = *worker.tiles[u];
  const int64_t count = unit.full ? rows * plan.cols : rows;
  const int64_t start = unit.full ? first * plan.cols : first;
  const Shape& shape = unit.full ? plan.full_shape : plan.row_shape;
  unsigned char* spread = worker.spread[u].data();
  for (size_t k = 0; k < unit.inputs.size(); ++k) {
    const RowInput& input = unit.inputs[k];
    if (input.kind == RowInput::Kind::kOutside) {
      feed_argument(run.feeds[u][k], k, shape, start, count, tile);
    } else if (input.kind == RowInput::Kind::kRegister) {
      tile.bind_argument(k, read_at(run, worker, input.reg, first));
    } else {
      const size_t item = itemsize(plan.registers[static_cast<size_t>(input.reg)].dtype);
      spread_rows(read_at(run, worker, input.reg, first), spread, rows, plan.cols, item);
      tile.bind_argument(k, spread);
      spread += static_cast<size_t>(lanes_of(run, true)) * item;
    }
  }
  tile.run_into(count, register_at(run, worker, unit.out, first));
}

RowRun prepare(const RowProgram& program, const Values& args) {
  const RowPlan& plan = program.plan;
  RowRun run{plan, program.spans, block_rows(plan), {}, {}, {}, {}, {}, {}};
  const std::vector<int64_t> last_dim = {static_cast<int64_t>(plan.full_shape.size()) - 1};
  for (const RowUnit& unit : plan.units) {
    run.sources.emplace_back();
    run.feeds.emplace_back();
    run.inits.emplace_back();
    run.column_sources.emplace_back();
    if (unit.kind == RowUnit::Kind::kReduce) {
      run.inits.back() = to_host(args[static_cast<size_t>(unit.init)].get());
      if (unit.loaded >= 0) {
        Tensor source = to_host(args[static_cast<size_t>(unit.loaded)].get());
        if (reduces_in_column_order(source, last_dim))
          run.column_sources.back() = std::move(source);
      }
      continue;
    }
    const Shape& shape = unit.full ? plan.full_shape : plan.row_shape;
    auto& sources = run.sources.back();
    for (size_t k = 0; k < unit.inputs.size(); ++k) {
      sources.emplace_back();
      if (unit.inputs[k].kind != RowInput::Kind::kOutside) continue;
      sources.back() = leaf_source(unit.inputs[k].leaf, args, shape.size());
      const DType expected = unit.kind == RowUnit::Kind::kLoad
                                 ? plan.registers[static_cast<size_t>(unit.out)].dtype
                                 : unit.program.arguments[k];
      if (sources.back()->tensor().dtype() != expected) {
        throw Error(ErrorKind::kInvalidArgument, "a fused loop's input has an unexpected dtype");
      }
    }
    // The feeds point into their sources, which stay where they are from here on.
    for (size_t k = 0; k < unit.inputs.size(); ++k) {
      run.feeds.back().push_back(
          sources[k] ? leaf_feed(*sources[k], shape, lanes_of(run, unit.full)) : LeafFeed{});
    }
  }
  run.output_of.assign(plan.registers.size(), -1);
  int64_t output_bytes = 0;
  for (size_t k = 0; k < plan.results.size(); ++k) {
    const RowRegister& reg = plan.registers[static_cast<size_t>(plan.results[k])];
    run.output_of[static_cast<size_t>(plan.results[k])] = static_cast<int>(k);
    run.outputs.push_back(
        Tensor::allocate(reg.dtype, reg.full ? plan.full_shape : plan.row_shape, Order::kRowMajor));
    output_bytes += run.outputs.back().nbytes();
  }
  run.stream_outputs = output_bytes >= kStreamedResultBytes;  // all results together
  return run;
}

Values run_rows(const RowProgram& program, const Values& args) {
  const RowRun run = prepare(program, args);
  const RowPlan& plan = program.plan;
  for_each_block_with_workers(
      plan.rows, program.bytes_per_row, plan.cols,
      [&] { return std::make_unique<RowWorker>(make_worker(run)); },
      [&](int64_t begin, int64_t end, RowWorker& worker) {
        for (int64_t first = begin; first < end; first += run.block) {
          const int64_t rows = std::min(run.block, end - first);
          for (size_t u = 0; u < plan.units.size(); ++u) run_unit(run, worker, u, first, rows);
        }
        if (run.stream_outputs) stream_fence();
      });
  g_row_fused_runs.fetch_add(1, std::memory_order_relaxed);
  if (run.stream_outputs) g_streamed_runs.fetch_add(1, std::memory_order_relaxed);
  Values results;
  for (const Tensor& out : run.outputs) results.emplace_back(out);
  return results;
}

}  // namespace

OpFn row_fused_run(RowPlan plan) {
  auto shared = std::make_shared<const RowProgram>(row_program(std::move(plan)));
  return [shared](Interpreter&, const Values& args) -> Values { return run_rows(*shared, args); };
}

int64_t row_fused_runs() { return g_row_fused_runs.load(std::memory_order_relaxed); }

int64_t row_fused_streamed_runs() { return g_streamed_runs.load(std::memory_order_relaxed); }

}  // namespace ndbuf::program
