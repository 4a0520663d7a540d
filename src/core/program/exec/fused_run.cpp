// The block evaluator of fused groups: each block of the output is computed by running the
// members' own planned kernels on block-sized views, so fused and unfused results are the same
// by construction; blocks run in parallel and only the output is allocated at full size.
// Groups of float arithmetic whose inputs allow it take the faster tile path instead
// (fused_spans.cpp).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/exec/fused_spans.hpp"
#include "program/exec/fusion.hpp"
#include "program/kernels/block_scratch.hpp"

namespace ndbuf::program {
namespace {

// Elements per block: the few live block-sized values of a group stay in a core's L2 cache.
constexpr int64_t kFusedBlockElements = 16384;

// The output cut into blocks: the axes before `axis` fixed, a run of up to `chunk` indices
// along `axis`, every later axis whole, so each block is a contiguous run of the row-major
// output. A 0-d output is one block (axis -1).
struct BlockGrid {
  const Shape* shape = nullptr;
  int axis = -1;
  int64_t inner = 1;  // elements per index along `axis`
  int64_t chunk = 1;
  int64_t chunks_per_outer = 1;
  int64_t count = 1;
};

BlockGrid block_grid(const Shape& shape) {
  BlockGrid grid;
  grid.shape = &shape;
  if (shape.empty()) return grid;
  int axis = static_cast<int>(shape.size()) - 1;
  int64_t inner = 1;
  while (axis > 0 && inner * shape[axis] <= kFusedBlockElements) inner *= shape[axis--];
  grid.axis = axis;
  grid.inner = inner;
  grid.chunk =
      std::clamp<int64_t>(kFusedBlockElements / inner, 1, std::max<int64_t>(1, shape[axis]));
  grid.chunks_per_outer = (shape[axis] + grid.chunk - 1) / grid.chunk;
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= shape[a];
  grid.count = outer * grid.chunks_per_outer;
  return grid;
}

// One block: where it starts in the output, its view shape, and its index along the fixed axes.
struct Block {
  int64_t flat_start = 0;
  Shape shape;
  std::vector<int64_t> fixed;  // index of each axis before grid.axis, then the chunk start
};

Block block_at(const BlockGrid& grid, int64_t b) {
  Block block;
  const Shape& shape = *grid.shape;
  if (grid.axis < 0) return block;
  const int64_t extent = shape[grid.axis];
  int64_t outer = b / grid.chunks_per_outer;
  const int64_t start = (b % grid.chunks_per_outer) * grid.chunk;
  block.fixed.assign(static_cast<size_t>(grid.axis) + 1, 0);
  block.fixed[grid.axis] = start;
  block.flat_start = (outer * extent + start) * grid.inner;
  for (int a = grid.axis; a-- > 0;) {
    block.fixed[a] = outer % shape[a];
    outer /= shape[a];
  }
  block.shape.push_back(std::min(grid.chunk, extent - start));
  block.shape.insert(block.shape.end(), shape.begin() + grid.axis + 1, shape.end());
  return block;
}

LeafSource leaf_source(const FusedLeaf& leaf, const Values& args, size_t rank) {
  Tensor t =
      leaf.kind == FusedLeaf::Kind::kConstant ? *leaf.constant : to_host(args[leaf.operand].get());
  if (leaf.kind == FusedLeaf::Kind::kScalar) return {std::move(t), {}};
  if (leaf.kind != FusedLeaf::Kind::kBroadcast) {
    Strides strides = t.strides();
    return {std::move(t), std::move(strides)};
  }
  Strides strides(rank, 0);
  for (size_t j = 0; j < leaf.dims.size(); ++j) {
    if (t.shape()[j] != 1) strides[leaf.dims[j]] = t.strides()[j];
  }
  return {std::move(t), std::move(strides)};
}

// A block of one repeated element (a broadcast scalar or a splat constant): the element,
// then doubling copies, far faster than a strided walk with zero strides.
Tensor repeated_block(const Tensor& source, int64_t offset, const Shape& shape) {
  Tensor out = allocate_result(source.dtype(), shape);
  const size_t item = itemsize(source.dtype());
  const size_t total = static_cast<size_t>(out.nbytes());
  auto* dst = static_cast<unsigned char*>(out.data());
  if (total == 0) return out;
  std::memcpy(dst, static_cast<const unsigned char*>(source.storage()->data()) + offset * item,
              item);
  for (size_t filled = item; filled < total; filled *= 2) {
    std::memcpy(dst + filled, dst, std::min(filled, total - filled));
  }
  return out;
}

// The block of `source`, dense row-major so the kernels take their flat loops.
Tensor leaf_block(const LeafSource& source, const BlockGrid& grid, const Block& block) {
  if (source.strides.empty()) return source.tensor;
  if (grid.axis < 0) return make_dense(source.tensor, Order::kRowMajor);
  int64_t offset = source.tensor.offset();
  for (size_t a = 0; a < block.fixed.size(); ++a) offset += block.fixed[a] * source.strides[a];
  Strides strides(source.strides.begin() + grid.axis, source.strides.end());
  if (std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 0; })) {
    return repeated_block(source.tensor, offset, block.shape);
  }
  Tensor view(source.tensor.storage(), source.tensor.dtype(), block.shape, std::move(strides),
              offset);
  if (view.is_contiguous(Order::kRowMajor)) return view;
  return make_dense(view, Order::kRowMajor);
}

struct BlockRunner {
  const FusedPlan& plan;
  const BlockGrid& grid;
  const std::vector<LeafSource>& sources;
  Interpreter& interpreter;
  Tensor& out;

  void run(int64_t b) const {
    const Block block = block_at(grid, b);
    const size_t leaves = plan.leaves.size();
    Values slots(leaves + plan.steps.size());
    for (size_t k = 0; k < leaves; ++k) slots[k] = leaf_block(sources[k], grid, block);
    Values inputs;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      const FusedStep& step = plan.steps[s];
      inputs.clear();
      for (int slot : step.inputs) inputs.push_back(slots[slot]);
      slots[leaves + s] = std::move(step.run(interpreter, inputs)[0]);
      for (int slot : step.release) slots[slot] = Value();
    }
    auto* dst = static_cast<unsigned char*>(out.data()) +
                block.flat_start * static_cast<int64_t>(itemsize(out.dtype()));
    copy_to_dense(slots.back().get(), dst, Order::kRowMajor);
  }
};

Tensor fresh_output(const FusedPlan& plan) {
  return Tensor::allocate(plan.output.dtype, plan.output.shape, Order::kRowMajor);
}

// Runs every block, in parallel when the output is large; the first exception a block throws
// is rethrown once all threads are done (no exception may leave a parallel region).
void run_blocks(const BlockRunner& runner, int64_t bytes_per_block) {
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  std::mutex lock;
  // One scratch pool per thread, kept across the blocks it runs; blocks of the widest dtype
  // (16 bytes) fit.
  const size_t scratch_bytes = static_cast<size_t>(runner.grid.chunk * runner.grid.inner) * 16;
  std::vector<BlockScratch> pools(static_cast<size_t>(max_threads()), BlockScratch(scratch_bytes));
  for_each_block(
      runner.grid.count, bytes_per_block,
      [&](int64_t begin, int64_t end) {
        const BlockScratchScope scope(&pools[current_thread_index() % pools.size()]);
        for (int64_t b = begin; b < end && !failed.load(std::memory_order_relaxed); ++b) {
          try {
            runner.run(b);
          } catch (...) {
            const std::lock_guard<std::mutex> guard(lock);
            if (!failure) failure = std::current_exception();
            failed.store(true);
          }
        }
      },
      runner.grid.chunk * runner.grid.inner);
  if (failure) std::rethrow_exception(failure);
}

// The full-size output: the donated memory offered to this op (block_scratch.hpp) when every
// leaf over that memory reads it in place (element i of the output from element i of the
// leaf, so each block and tile reads its elements before writing them); a broadcast of it
// would read elements other blocks may already have overwritten, so then fresh memory.
Tensor fused_output(const FusedPlan& plan, const std::vector<LeafSource>& sources) {
  std::optional<Tensor> offered = take_offered_memory(plan.output.dtype, plan.output.shape);
  if (offered) {
    for (size_t k = 0; k < sources.size(); ++k) {
      const bool shares = sources[k].tensor.storage() == offered->storage();
      if (shares && plan.leaves[k].kind != FusedLeaf::Kind::kSame) return fresh_output(plan);
    }
    return *offered;
  }
  return fresh_output(plan);
}

}  // namespace

OpFn fused_run(FusedPlan plan) {
  return [plan = std::move(plan)](Interpreter& interpreter, const Values& args) -> Values {
    const Shape& shape = plan.output.shape;
    std::vector<LeafSource> sources;
    int64_t bytes_per_element = static_cast<int64_t>(itemsize(plan.output.dtype));
    for (const FusedLeaf& leaf : plan.leaves) {
      sources.push_back(leaf_source(leaf, args, shape.size()));
      bytes_per_element += static_cast<int64_t>(itemsize(sources.back().tensor.dtype()));
    }
    Tensor out = fused_output(plan, sources);
    if (out.numel() == 0) return {Value(out)};
    if (plan.spans && run_span_program(*plan.spans, sources, out)) return {Value(out)};
    const BlockGrid grid = block_grid(shape);
    const BlockRunner runner{plan, grid, sources, interpreter, out};
    run_blocks(runner, bytes_per_element * grid.chunk * grid.inner);
    return {Value(out)};
  };
}

}  // namespace ndbuf::program
