// The executor of fused groups: the group's element program runs over the output (row-major,
// or column-major where its leaves are and the layout is free) tile by tile (a few KiB per
// register, so a chain's live registers stay in the first-level cache), tiles in parallel. Each
// tile's leaves reach the argument registers as leaf_feed.hpp feeds them; the root's lanes are
// written straight into the output.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/element/element_program.hpp"
#include "program/exec/fusion.hpp"
#include "program/exec/interpreter.hpp"
#include "program/exec/kept_slot.hpp"
#include "program/exec/leaf_feed.hpp"
#include "program/kernels/column_staging.hpp"
#include "program/kernels/thread_workers.hpp"

namespace ndbuf::program {
namespace {

// Bytes per register of the widest dtype in the program.
constexpr int64_t kTileBytes = 8192;
// Tiles per gather when a leaf is read across its memory's order.
constexpr int64_t kTransposingTiles = 8;

std::atomic<int64_t> g_fused_runs{0};

int64_t tile_lanes(const ElementProgram& program) {
  size_t widest = 1;
  for (const ElementStep& step : program.steps) widest = std::max(widest, itemsize(step.dtype));
  return std::max<int64_t>(1, kTileBytes / static_cast<int64_t>(widest));
}

Tensor fresh_output(const FusedPlan& plan, Order order) {
  return Tensor::allocate(plan.output.dtype, plan.output.shape, order);
}

// The full-size output: the memory offered to this op (ExecContext::result) when every
// leaf over that memory reads it in place (element i of the output from element i of the
// leaf, so each tile reads its elements before writing them); a broadcast of it would read
// elements other tiles may already have overwritten, so then fresh memory.
Tensor fused_output(const FusedPlan& plan, const std::vector<LeafSource>& sources,
                    ResultMemory& memory, Order order) {
  std::optional<Tensor> offered = memory.take_offered(plan.output.dtype, plan.output.shape, order);
  if (offered) {
    for (size_t k = 0; k < sources.size(); ++k) {
      const bool shares = sources[k].tensor().storage() == offered->storage();
      if (shares && plan.leaves[k].kind != FusedLeaf::Kind::kSame) {
        return fresh_output(plan, order);
      }
    }
    return *offered;
  }
  return fresh_output(plan, order);
}

// One tile of the output: its leaves into the argument registers, the program, the root's
// lanes into the output.
struct FeedTiles {
  const Shape& shape;  // the output's, or its reversed axes for a column-major run
  const std::vector<LeafFeed>& feeds;
  unsigned char* out;
  int64_t out_item;

  void operator()(int64_t first, int64_t count, ElementTile& tile) const {
    for (size_t k = 0; k < feeds.size(); ++k) {
      feed_argument(feeds[k], k, shape, first, count, tile);
    }
    tile.run_into(count, out + first * out_item);
  }
};

// What a run needs besides its output: the leaves as read, their feeds and (for a loop the
// calling thread runs alone) a register set. Kept between a plan's runs (KeptSlot), so a small
// fused loop run again and again (a while body's) allocates none of it.
struct RunState {
  std::vector<LeafSource> sources;
  std::vector<LeafFeed> feeds;
  std::unique_ptr<ElementTile> tile;

  // Drops what the last run read (the leaves' tensors), keeping the memory.
  void forget_leaves() {
    for (LeafSource& source : sources) {
      source.borrowed = nullptr;
      source.held.reset();
    }
    for (LeafFeed& feed : feeds) feed.base = nullptr;
  }
};

// Runs every tile, in parallel when the output is large: blocks of the flat output as the
// element-wise kernels cut them, each walked a tile at a time, with one register set per
// thread (a register set is a few tiles of memory). A loop the calling thread runs alone uses
// the state's registers.
void run_tiles(const ElementProgram& program, RunState& state, int64_t items, int64_t lanes,
               int64_t bytes_per_item, const FeedTiles& body) {
  const auto walk = [&](int64_t begin, int64_t end, ElementTile& tile) {
    for (int64_t first = begin; first < end; first += lanes) {
      body(first, std::min(lanes, end - first), tile);
    }
  };
  if (loop_bytes(items, bytes_per_item) < kParallelBytes) {
    if (!state.tile || state.tile->lanes() != lanes) {
      state.tile = std::make_unique<ElementTile>(program, lanes);
    }
    walk(0, items, *state.tile);
    return;
  }
  for_each_block_with_workers(
      items, bytes_per_item, 1, [&] { return std::make_unique<ElementTile>(program, lanes); },
      walk);
}

Values run_plan(const FusedPlan& plan, RunState& state, int64_t lanes, const Values& args,
                ResultMemory& memory) {
  std::vector<LeafSource>& sources = state.sources;
  sources.resize(plan.leaves.size());
  int64_t bytes_per_element = static_cast<int64_t>(itemsize(plan.output.dtype));
  for (size_t k = 0; k < plan.leaves.size(); ++k) {
    read_leaf(sources[k], plan.leaves[k], args, plan.output.shape.size());
    if (sources[k].tensor().dtype() != plan.program.arguments[k]) {
      throw Error(ErrorKind::kInvalidArgument, "a fused group's input has an unexpected dtype");
    }
    bytes_per_element += static_cast<int64_t>(itemsize(sources[k].tensor().dtype()));
  }
  // Column-major leaves (splats aside): the loop runs over the reversed axes, where every leaf
  // is row-major, into the output (when its layout is free) or into a staging tensor
  // transposed after. A broadcast or transposed leaf keeps the row-major walk.
  const bool columns =
      reads_column_major(plan.output.shape, sources.size(),
                         [&](size_t k) -> const Strides& { return sources[k].strides; });
  const int64_t out_bytes =
      checked_numel(plan.output.shape) * static_cast<int64_t>(itemsize(plan.output.dtype));
  const bool column_major = columns && plan.any_layout;
  const bool staged = columns && !plan.any_layout && out_bytes <= kMaxStagedBytes;
  Shape reversed;
  if (column_major || staged) {
    reversed.assign(plan.output.shape.rbegin(), plan.output.shape.rend());
    for (LeafSource& source : sources) std::reverse(source.strides.begin(), source.strides.end());
  }
  const Shape& shape = reversed.empty() ? plan.output.shape : reversed;
  Tensor out =
      fused_output(plan, sources, memory, column_major ? Order::kColumnMajor : Order::kRowMajor);
  const int64_t total = out.numel();
  if (total == 0) return one_value(std::move(out));
  const Tensor target =
      staged ? Tensor::allocate(out.dtype(), out.shape(), Order::kColumnMajor) : out;
  // A transposing leaf reads rows in blocks as large as the element-wise kernels' blocks (the
  // registers then live in the second-level cache, as those kernels' blocks do).
  const bool transposing = std::any_of(sources.begin(), sources.end(), [&](const LeafSource& s) {
    return leaf_period(s, shape) == 0 && s.strides.back() != 0 && s.strides.back() != 1;
  });
  if (transposing) lanes *= kTransposingTiles;
  lanes = std::min(lanes, total);  // a small output needs no registers (and repeats) of a tile
  state.feeds.resize(sources.size());
  for (size_t k = 0; k < sources.size(); ++k) {
    prepare_feed(state.feeds[k], sources[k], shape, lanes);
  }
  auto* dst = static_cast<unsigned char*>(target.data());
  const FeedTiles body{shape, state.feeds, dst, static_cast<int64_t>(itemsize(out.dtype()))};
  run_tiles(plan.program, state, total, lanes, bytes_per_element, body);
  if (staged) {
    copy_elements(target.data(), target.strides(), out.data(), out.strides(), out.shape(),
                  itemsize(out.dtype()));
  }
  g_fused_runs.fetch_add(1, std::memory_order_relaxed);
  return one_value(std::move(out));
}

}  // namespace

OpFn fused_run(FusedPlan plan) {
  const int64_t lanes = tile_lanes(plan.program);
  auto shared = std::make_shared<const FusedPlan>(std::move(plan));
  auto kept = std::make_shared<KeptSlot<RunState>>();
  return [shared, kept, lanes](Interpreter& in, const Values& args) -> Values {
    std::unique_ptr<RunState> state = kept->take();
    Values out = run_plan(*shared, *state, lanes, args, in.context().result);
    state->forget_leaves();
    kept->keep(std::move(state));
    return out;
  };
}

int64_t fused_program_runs() { return g_fused_runs.load(std::memory_order_relaxed); }

}  // namespace ndbuf::program
