// The executor of fused groups: the group's element program runs over the row-major output
// tile by tile (a few KiB per register, so a chain's live registers stay in the first-level
// cache), tiles in parallel. Each tile's leaves reach the argument registers in place where
// their elements are already laid out as the tile's (a dense operand, a broadcast over
// leading axes), else are gathered; the root's lanes are written straight into the output.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/element/element_program.hpp"
#include "program/exec/fusion.hpp"
#include "program/kernels/block_scratch.hpp"

namespace ndbuf::program {
namespace {

// Bytes per register of the widest dtype in the program.
constexpr int64_t kTileBytes = 8192;
// Tiles per gather when a leaf is read across its memory's order, and the columns it gathers
// at once.
constexpr int64_t kTransposingTiles = 8;
constexpr int64_t kBand = 16;

std::atomic<int64_t> g_fused_runs{0};

int64_t tile_lanes(const ElementProgram& program) {
  size_t widest = 1;
  for (const ElementStep& step : program.steps) widest = std::max(widest, itemsize(step.dtype));
  return std::max<int64_t>(1, kTileBytes / static_cast<int64_t>(widest));
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

// The period of a leaf whose strides are zero over leading axes and row-major dense over the
// rest (element i of the output reads element i % period from the leaf's first), or 0 for
// any other layout. A 0-d leaf has period 1; a dense one the whole output.
int64_t leaf_period(const LeafSource& leaf, const Shape& shape) {
  if (leaf.strides.empty()) return 1;
  int64_t dense = 1;
  size_t axis = shape.size();
  while (axis > 0 && (shape[axis - 1] == 1 || leaf.strides[axis - 1] == dense)) {
    dense *= shape[--axis];
  }
  for (size_t a = 0; a < axis; ++a) {
    if (shape[a] != 1 && leaf.strides[a] != 0) return 0;
  }
  return dense;
}

// How the tiles read one leaf: a period (contiguous runs, laid out once over a tile and a
// period when the period is shorter than a tile, so every tile reads in place) or a walk
// over the leaf's strides.
struct LeafFeed {
  const unsigned char* base = nullptr;  // the leaf's element at output index 0
  size_t item = 1;
  int64_t period = 0;
  std::vector<unsigned char> repeated;
  const Strides* strides = nullptr;
};

LeafFeed leaf_feed(const LeafSource& source, const Shape& shape, int64_t lanes) {
  LeafFeed feed;
  feed.item = itemsize(source.tensor.dtype());
  feed.base = static_cast<const unsigned char*>(source.tensor.storage()->data()) +
              source.tensor.offset() * static_cast<int64_t>(feed.item);
  feed.period = leaf_period(source, shape);
  feed.strides = &source.strides;
  if (feed.period > 0 && feed.period < lanes) {
    const size_t period_bytes = static_cast<size_t>(feed.period) * feed.item;
    const size_t total = static_cast<size_t>(lanes + feed.period) * feed.item;
    feed.repeated.resize(total);
    std::memcpy(feed.repeated.data(), feed.base, period_bytes);
    for (size_t filled = period_bytes; filled < total; filled *= 2) {
      std::memcpy(feed.repeated.data() + filled, feed.repeated.data(),
                  std::min(filled, total - filled));
    }
  }
  return feed;
}

// Output elements [start, start + count) of a periodic leaf whose period is at least a tile:
// in place, or copied into `own` where the tile wraps around the period's end.
const void* periodic_tile(const LeafFeed& feed, int64_t start, int64_t count, void* own) {
  int64_t at = start % feed.period;
  if (at + count <= feed.period) return feed.base + at * static_cast<int64_t>(feed.item);
  auto* dst = static_cast<unsigned char*>(own);
  while (count > 0) {
    const int64_t run = std::min(count, feed.period - at);
    std::memcpy(dst, feed.base + at * static_cast<int64_t>(feed.item),
                static_cast<size_t>(run) * feed.item);
    dst += run * static_cast<int64_t>(feed.item);
    count -= run;
    at = 0;
  }
  return own;
}

// Where a strided walk stands: the output index and the leaf's element offset there.
struct WalkPosition {
  const Shape& shape;
  const Strides& strides;
  std::vector<int64_t> index;
  int64_t offset = 0;

  WalkPosition(const Shape& s, const Strides& st, int64_t start)
      : shape(s), strides(st), index(s.size(), 0) {
    for (size_t a = s.size(), rest = static_cast<size_t>(start); a-- > 0;) {
      index[a] = static_cast<int64_t>(rest) % s[a];
      rest /= static_cast<size_t>(s[a]);
      offset += index[a] * st[a];
    }
  }

  // `n` steps along `axis` (at most to its end), carrying into the earlier axes.
  void advance(size_t axis, int64_t n) {
    index[axis] += n;
    offset += n * strides[axis];
    for (size_t a = axis; a > 0 && index[a] == shape[a]; --a) {
      offset -= index[a] * strides[a];
      index[a] = 0;
      ++index[a - 1];
      offset += strides[a - 1];
    }
  }
};

// Whether a leaf is read across its memory's order (a column-major operand, a transposing
// broadcast): its tiles gather whole rows at a time, column by column.
bool is_transposing(const LeafFeed& feed) {
  if (feed.period > 0) return false;
  const int64_t last = feed.strides->back();
  return last != 0 && last != 1;
}

// Output elements [start, start + count) of any other leaf, walked with the leaf's strides into
// `own`: row by row, or for a transposing leaf whole rows at once in the leaf's memory order
// (each cache line read once per block of rows, not once per row).
void strided_tile(const LeafFeed& feed, const Shape& shape, int64_t start, int64_t count,
                  void* own) {
  const size_t rank = shape.size();
  const int64_t cols = shape[rank - 1];
  const int64_t last_stride = feed.strides->back();
  WalkPosition at(shape, *feed.strides, start);
  with_cell(feed.item, [&](auto tag) {
    using C = decltype(tag);
    const C* src = reinterpret_cast<const C*>(feed.base);
    C* dst = static_cast<C*>(own);
    while (count > 0) {
      if (rank >= 2 && is_transposing(feed) && at.index[rank - 1] == 0 && count >= 2 * cols) {
        const int64_t rows = std::min(count / cols, shape[rank - 2] - at.index[rank - 2]);
        const int64_t row_stride = (*feed.strides)[rank - 2];
        // Bands of kBand columns: a band's source lines stay in cache down its rows, and each
        // row's part of the band is written contiguously.
        for (int64_t j0 = 0; j0 < cols; j0 += kBand) {
          const int64_t j1 = std::min(cols, j0 + kBand);
          for (int64_t r = 0; r < rows; ++r) {
            const C* row = src + at.offset + r * row_stride;
            for (int64_t j = j0; j < j1; ++j) dst[r * cols + j] = row[j * last_stride];
          }
        }
        dst += rows * cols;
        count -= rows * cols;
        at.advance(rank - 2, rows);
        continue;
      }
      const int64_t run = std::min(count, cols - at.index[rank - 1]);
      if (last_stride == 0) {  // a column broadcast: one element per row
        std::fill(dst, dst + run, src[at.offset]);
      } else if (last_stride == 1) {
        std::copy(src + at.offset, src + at.offset + run, dst);
      } else {
        for (int64_t i = 0; i < run; ++i) dst[i] = src[at.offset + i * last_stride];
      }
      dst += run;
      count -= run;
      at.advance(rank - 1, run);
    }
  });
}

void feed_argument(const LeafFeed& feed, size_t k, const Shape& shape, int64_t start, int64_t count,
                   ElementTile& tile) {
  if (!feed.repeated.empty()) {
    tile.bind_argument(
        k, feed.repeated.data() + (start % feed.period) * static_cast<int64_t>(feed.item));
  } else if (feed.period > 0) {
    tile.bind_argument(k, periodic_tile(feed, start, count, tile.argument(k)));
  } else {
    void* own = tile.argument(k);
    strided_tile(feed, shape, start, count, own);
  }
}

Tensor fresh_output(const FusedPlan& plan) {
  return Tensor::allocate(plan.output.dtype, plan.output.shape, Order::kRowMajor);
}

// The full-size output: the donated memory offered to this op (block_scratch.hpp) when every
// leaf over that memory reads it in place (element i of the output from element i of the
// leaf, so each tile reads its elements before writing them); a broadcast of it would read
// elements other tiles may already have overwritten, so then fresh memory.
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

// One tile of the output: its leaves into the argument registers, the program, the root's
// lanes into the output.
struct FeedTiles {
  const FusedPlan& plan;
  const std::vector<LeafFeed>& feeds;
  unsigned char* out;
  int64_t out_item;

  void operator()(int64_t first, int64_t count, ElementTile& tile) const {
    for (size_t k = 0; k < feeds.size(); ++k) {
      feed_argument(feeds[k], k, plan.output.shape, first, count, tile);
    }
    tile.run_into(count, out + first * out_item);
  }
};

// Runs every tile, in parallel when the output is large: blocks of the flat output as the
// element-wise kernels cut them, each walked a tile at a time, with one register set per
// thread made on its first block (a register set is a few tiles of memory). The first
// exception is kept and rethrown once the loop is done (none may leave a parallel region).
void run_tiles(const ElementProgram& program, int64_t items, int64_t lanes, int64_t bytes_per_item,
               const FeedTiles& body) {
  // A loop under kParallelBytes runs on the calling thread alone: one register set, without
  // asking for the thread count (R's option) on every small step.
  const bool serial = loop_bytes(items, bytes_per_item) < kParallelBytes;
  std::vector<std::unique_ptr<ElementTile>> registers(serial ? size_t{1}
                                                             : static_cast<size_t>(max_threads()));
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  for_each_block(items, bytes_per_item, [&](int64_t begin, int64_t end) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      auto& tile = registers[static_cast<size_t>(current_thread_index()) % registers.size()];
      if (!tile) tile = std::make_unique<ElementTile>(program, lanes);
      for (int64_t first = begin; first < end; first += lanes) {
        body(first, std::min(lanes, end - first), *tile);
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!failed.exchange(true)) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

Values run_plan(const FusedPlan& plan, int64_t lanes, const Values& args) {
  const Shape& shape = plan.output.shape;
  std::vector<LeafSource> sources;
  int64_t bytes_per_element = static_cast<int64_t>(itemsize(plan.output.dtype));
  for (size_t k = 0; k < plan.leaves.size(); ++k) {
    sources.push_back(leaf_source(plan.leaves[k], args, shape.size()));
    if (sources.back().tensor.dtype() != plan.program.arguments[k]) {
      throw Error(ErrorKind::kInvalidArgument, "a fused group's input has an unexpected dtype");
    }
    bytes_per_element += static_cast<int64_t>(itemsize(sources.back().tensor.dtype()));
  }
  Tensor out = fused_output(plan, sources);
  const int64_t total = out.numel();
  if (total == 0) return {Value(out)};
  // A transposing leaf reads rows in blocks as large as the element-wise kernels' blocks (the
  // registers then live in the second-level cache, as those kernels' blocks do).
  const bool transposing = std::any_of(sources.begin(), sources.end(), [&](const LeafSource& s) {
    return leaf_period(s, shape) == 0 && s.strides.back() != 0 && s.strides.back() != 1;
  });
  if (transposing) lanes *= kTransposingTiles;
  lanes = std::min(lanes, total);  // a small output needs no registers (and repeats) of a tile
  std::vector<LeafFeed> feeds;
  for (const LeafSource& source : sources) feeds.push_back(leaf_feed(source, shape, lanes));
  auto* dst = static_cast<unsigned char*>(out.data());
  const FeedTiles body{plan, feeds, dst, static_cast<int64_t>(itemsize(out.dtype()))};
  run_tiles(plan.program, total, lanes, bytes_per_element, body);
  g_fused_runs.fetch_add(1, std::memory_order_relaxed);
  return {Value(out)};
}

}  // namespace

OpFn fused_run(FusedPlan plan) {
  const int64_t lanes = tile_lanes(plan.program);
  auto shared = std::make_shared<const FusedPlan>(std::move(plan));
  return [shared, lanes](Interpreter&, const Values& args) -> Values {
    return run_plan(*shared, lanes, args);
  };
}

int64_t fused_program_runs() { return g_fused_runs.load(std::memory_order_relaxed); }

}  // namespace ndbuf::program
