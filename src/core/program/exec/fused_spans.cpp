// Fused groups run tile by tile (fused_spans.hpp). A tile of the output is a few KiB, so the
// registers holding intermediates stay in the first-level cache; each member runs as one
// vectorised span loop per tile, and no view or tensor is made per tile.
#include "program/exec/fused_spans.hpp"

#include <algorithm>
#include <atomic>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/block_scratch.hpp"
#include "program/kernels/span_kernels.hpp"

namespace ndbuf::program {
namespace {

// Bytes per register: a group's few live registers and its inputs' tiles fit in L1 together.
constexpr int64_t kTileBytes = 8192;

std::atomic<int64_t> g_span_runs{0};

bool has_span_kernel(const Op& op, SpanStep& step) {
  if (auto unary = unary_op_named(op.name)) {
    step.unary = *unary;
    return op.operands.size() == 1 && span_unary<float>(*unary) != nullptr;
  }
  if (auto binary = binary_op_named(op.name)) {
    step.is_binary = true;
    step.binary = *binary;
    return op.operands.size() == 2 && span_binary<float>(*binary) != nullptr;
  }
  return false;
}

bool all_of_dtype(const Op& op, DType dtype) {
  const auto same = [&](const Type& t) { return t.is_tensor() && t.dtype == dtype; };
  return std::all_of(op.operand_types.begin(), op.operand_types.end(), same) &&
         std::all_of(op.result_types.begin(), op.result_types.end(), same);
}

// Registers are reused once the step reading a value for the last time has run (a step may
// write the register it reads: element i is read before it is written).
struct RegisterFile {
  std::vector<int> free;
  int count = 0;
  int take() {
    if (free.empty()) return count++;
    const int r = free.back();
    free.pop_back();
    return r;
  }
};

}  // namespace

std::optional<SpanProgram> span_program(const FusedPlan& plan, const std::vector<const Op*>& ops) {
  SpanProgram program;
  program.dtype = plan.output.dtype;
  program.leaves = static_cast<int>(plan.leaves.size());
  if (program.dtype != DType::kF32 && program.dtype != DType::kF64) return std::nullopt;
  for (const FusedLeaf& leaf : plan.leaves) {
    if (leaf.kind == FusedLeaf::Kind::kScalar) return std::nullopt;
  }
  RegisterFile registers;
  std::vector<int> register_of(plan.steps.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    SpanStep step;
    if (!all_of_dtype(*ops[s], program.dtype) || !has_span_kernel(*ops[s], step)) {
      return std::nullopt;
    }
    for (int slot : plan.steps[s].inputs) {
      step.inputs.push_back(
          slot < program.leaves ? slot : program.leaves + register_of[slot - program.leaves]);
    }
    for (int slot : plan.steps[s].release) {
      if (slot >= program.leaves) registers.free.push_back(register_of[slot - program.leaves]);
    }
    if (s + 1 < plan.steps.size()) step.result = register_of[s] = registers.take();
    program.steps.push_back(std::move(step));
  }
  program.registers = registers.count;
  return program;
}

namespace {

// A leaf as the tiles read it: element i of the output reads base[i % period]. Periods
// shorter than a tile are laid out once over a tile and one period, so every tile reads a
// contiguous run.
template <class T>
struct LeafSpan {
  const T* base = nullptr;
  int64_t period = 1;
  std::vector<T> tiled;
};

// The period of a leaf whose strides are zero over leading axes and row-major dense over the
// rest (a dense operand has the whole output as its period); false for any other layout.
bool leaf_period(const LeafSource& leaf, const Shape& shape, int64_t& period) {
  if (leaf.strides.size() != shape.size()) return false;
  int64_t dense = 1;
  size_t axis = shape.size();
  while (axis > 0 && (shape[axis - 1] == 1 || leaf.strides[axis - 1] == dense)) {
    dense *= shape[--axis];
  }
  for (size_t a = 0; a < axis; ++a) {
    if (shape[a] != 1 && leaf.strides[a] != 0) return false;
  }
  period = dense;
  return true;
}

template <class T>
bool leaf_span(const LeafSource& leaf, const Shape& shape, int64_t tile, LeafSpan<T>& span) {
  if (leaf.tensor.dtype() != (sizeof(T) == 4 ? DType::kF32 : DType::kF64)) return false;
  if (!leaf_period(leaf, shape, span.period)) return false;
  span.base = static_cast<const T*>(leaf.tensor.storage()->data()) + leaf.tensor.offset();
  if (span.period < tile) {
    span.tiled.resize(static_cast<size_t>(tile + span.period));
    for (size_t i = 0; i < span.tiled.size(); ++i) span.tiled[i] = span.base[i % span.period];
  }
  return true;
}

// The leaf's elements [start, start + len) of the output, contiguous; `spare` holds them when
// they wrap around the end of the period.
template <class T>
const T* leaf_tile(const LeafSpan<T>& leaf, int64_t start, int64_t len, T* spare) {
  const int64_t at = start % leaf.period;
  if (!leaf.tiled.empty()) return leaf.tiled.data() + at;
  if (at + len <= leaf.period) return leaf.base + at;
  const int64_t head = leaf.period - at;
  std::copy(leaf.base + at, leaf.base + leaf.period, spare);
  std::copy(leaf.base, leaf.base + (len - head), spare + head);
  return spare;
}

template <class T>
struct ResolvedStep {
  SpanUnaryFn<T> unary = nullptr;
  SpanBinaryFn<T> binary = nullptr;
  int lhs = 0;
  int rhs = 0;
  int result = -1;
};

template <class T>
struct TileRunner {
  const SpanProgram& program;
  const std::vector<LeafSpan<T>>& leaves;
  std::vector<ResolvedStep<T>> steps;
  int64_t tile;
  T* out;

  // Runs tiles [begin, end) of the output; `scratch` holds the registers, then one spare
  // tile per leaf; `slots` has room for a pointer per leaf and register.
  void run(int64_t begin, int64_t end, T* scratch, const T** slots) const {
    const size_t leaf_count = leaves.size();
    for (int r = 0; r < program.registers; ++r) slots[leaf_count + r] = scratch + r * tile;
    T* spares = scratch + program.registers * tile;
    for (int64_t start = begin; start < end; start += tile) {
      const int64_t len = std::min(tile, end - start);
      for (size_t k = 0; k < leaf_count; ++k) {
        slots[k] = leaf_tile(leaves[k], start, len, spares + k * tile);
      }
      for (const ResolvedStep<T>& step : steps) {
        T* dst = step.result < 0 ? out + start : scratch + step.result * tile;
        if (step.binary != nullptr) {
          step.binary(slots[step.lhs], slots[step.rhs], dst, len);
        } else {
          step.unary(slots[step.lhs], dst, len);
        }
      }
    }
  }
};

template <class T>
std::vector<ResolvedStep<T>> resolve_steps(const SpanProgram& program) {
  std::vector<ResolvedStep<T>> steps;
  for (const SpanStep& step : program.steps) {
    ResolvedStep<T> resolved;
    if (step.is_binary) {
      resolved.binary = span_binary<T>(step.binary);
      resolved.rhs = step.inputs[1];
    } else {
      resolved.unary = span_unary<T>(step.unary);
    }
    resolved.lhs = step.inputs[0];
    resolved.result = step.result;
    steps.push_back(resolved);
  }
  return steps;
}

template <class T>
bool run_typed(const SpanProgram& program, const std::vector<LeafSource>& sources, Tensor& out) {
  // No tile longer than the output: registers and tiled leaves are filled per run, which
  // would cost more than the work itself for a small output (a loop body's vector).
  const int64_t tile =
      std::min(kTileBytes / static_cast<int64_t>(sizeof(T)), std::max<int64_t>(out.numel(), 1));
  std::vector<LeafSpan<T>> leaves(sources.size());
  for (size_t k = 0; k < sources.size(); ++k) {
    if (!leaf_span(sources[k], out.shape(), tile, leaves[k])) return false;
  }
  const TileRunner<T> runner{program, leaves, resolve_steps<T>(program), tile,
                             static_cast<T*>(out.data())};
  const size_t scratch_elements =
      static_cast<size_t>((program.registers + static_cast<int64_t>(leaves.size())) * tile);
  // One scratch per thread, made before the loop (nothing may throw inside it).
  const size_t threads = static_cast<size_t>(max_threads());
  std::vector<std::vector<T>> pools(threads, std::vector<T>(scratch_elements));
  std::vector<std::vector<const T*>> slot_pools(
      threads, std::vector<const T*>(leaves.size() + static_cast<size_t>(program.registers)));
  const int64_t bytes_per_item = static_cast<int64_t>(sizeof(T) * (leaves.size() + 1));
  for_each_block(out.numel(), bytes_per_item, [&](int64_t begin, int64_t end) {
    const size_t thread = static_cast<size_t>(current_thread_index()) % threads;
    runner.run(begin, end, pools[thread].data(), slot_pools[thread].data());
  });
  g_span_runs.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

bool run_span_program(const SpanProgram& program, const std::vector<LeafSource>& leaves,
                      Tensor& out) {
  if (program.dtype == DType::kF32) return run_typed<float>(program, leaves, out);
  return run_typed<double>(program, leaves, out);
}

int64_t span_program_runs() { return g_span_runs.load(std::memory_order_relaxed); }

}  // namespace ndbuf::program
