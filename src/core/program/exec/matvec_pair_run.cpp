// The executor of fused matrix-vector pairs (matvec_pairs.hpp): the matrix in blocks of rows,
// blocks in parallel; per block its products z, the chain's d (an element program over the
// block's rows, the other leaves fed as fused loops feed them), and its share of g; then the
// shares summed in block order.
#include <algorithm>
#include <atomic>
#include <memory>

#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/exec/interpreter.hpp"
#include "program/exec/leaf_feed.hpp"
#include "program/exec/matvec_pairs.hpp"
#include "program/kernels/matvec_blocks.hpp"
#include "program/kernels/thread_workers.hpp"

namespace ndbuf::program {
namespace {

std::atomic<int64_t> g_matvec_pair_runs{0};

// The matrix as the blocks read it: element (i, j) at data[i * row_stride + j * col_stride].
template <class T>
struct MatrixView {
  const T* data = nullptr;
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
};

// What one thread needs for its blocks: the chain's registers, the block's z and d, and a
// row-major copy of a block whose strides neither kernel walks.
template <class T>
struct PairWorker {
  std::unique_ptr<ElementTile> tile;
  std::vector<T> z, d, staged;
};

// The leaves of the chain other than z, read and fed over [rows].
struct ChainInputs {
  Shape shape;
  std::vector<LeafSource> sources;
  std::vector<LeafFeed> feeds;
};

ChainInputs chain_inputs(const MatvecPairPlan& plan, const Values& args, int64_t rows) {
  ChainInputs in;
  in.shape = {rows};
  const size_t leaves = plan.chain.leaves.size();
  in.sources.resize(leaves);
  in.feeds.resize(leaves);
  for (size_t k = 0; k < leaves; ++k) {
    if (static_cast<int>(k) == plan.z_leaf) continue;
    read_leaf(in.sources[k], plan.chain.leaves[k], args, 1);
    prepare_feed(in.feeds[k], in.sources[k], in.shape, kMatvecBlockRows);
  }
  return in;
}

// Rows [first, first + count) of the matrix: z, then d, then the share of g.
template <class T>
void run_block(const MatvecPairPlan& plan, const MatrixView<T>& m, const T* w,
               const ChainInputs& in, int64_t first, int64_t count, PairWorker<T>& worker,
               T* share) {
  const T* x = m.data + first * m.row_stride;
  const T* rows = x;
  int64_t row_stride = m.row_stride;
  if (m.row_stride != 1 && m.col_stride != 1) {  // neither layout: copied row-major
    worker.staged.resize(static_cast<size_t>(count * m.cols));
    copy_elements(x, {m.row_stride, m.col_stride}, worker.staged.data(), {m.cols, 1},
                  {count, m.cols}, sizeof(T));
    rows = worker.staged.data();
    row_stride = m.cols;
  }
  const bool by_columns = row_stride == 1;
  if (by_columns) {
    block_products_rows_contiguous(rows, m.col_stride, count, m.cols, w, worker.z.data());
  } else {
    block_products_cols_contiguous(rows, row_stride, count, m.cols, w, worker.z.data());
  }
  const T* d = worker.z.data();
  if (plan.has_chain()) {
    ElementTile& tile = *worker.tile;
    for (size_t k = 0; k < in.feeds.size(); ++k) {
      if (static_cast<int>(k) == plan.z_leaf) {
        tile.bind_argument(k, worker.z.data());
      } else {
        feed_argument(in.feeds[k], k, in.shape, first, count, tile);
      }
    }
    tile.run_into(count, worker.d.data());
    d = worker.d.data();
  }
  if (by_columns) {
    block_shares_rows_contiguous(rows, m.col_stride, count, m.cols, d, share);
  } else {
    block_shares_cols_contiguous(rows, row_stride, count, m.cols, d, share);
  }
}

template <class T>
Values run_pair(const MatvecPairPlan& plan, const Values& args) {
  const Tensor& given = args[0].get();
  const Tensor matrix = is_host(given.device()) ? given : to_host(given);
  const int64_t kept = 1 - plan.contracted;
  const MatrixView<T> m{static_cast<const T*>(matrix.data()), matrix.shape()[kept],
                        matrix.shape()[plan.contracted], matrix.strides()[kept],
                        matrix.strides()[plan.contracted]};
  const Tensor w = make_dense(args[1].get(), Order::kRowMajor);  // itself when dense
  const ChainInputs in = chain_inputs(plan, args, m.rows);
  const int64_t blocks = (m.rows + kMatvecBlockRows - 1) / kMatvecBlockRows;
  std::vector<T> shares(static_cast<size_t>(blocks * m.cols));
  const int64_t block_elements = kMatvecBlockRows * std::max<int64_t>(1, m.cols);
  const auto make = [&] {
    auto worker = std::make_unique<PairWorker<T>>();
    if (plan.has_chain()) {
      worker->tile = std::make_unique<ElementTile>(plan.chain.program, kMatvecBlockRows);
    }
    worker->z.resize(kMatvecBlockRows);
    worker->d.resize(kMatvecBlockRows);
    return worker;
  };
  for_each_block_with_workers(
      blocks, block_elements * static_cast<int64_t>(sizeof(T)), block_elements, make,
      [&](int64_t begin, int64_t end, PairWorker<T>& worker) {
        for (int64_t b = begin; b < end; ++b) {
          const int64_t first = b * kMatvecBlockRows;
          run_block(plan, m, static_cast<const T*>(w.data()), in, first,
                    std::min(kMatvecBlockRows, m.rows - first), worker, shares.data() + b * m.cols);
        }
      });
  Tensor g = Tensor::allocate(plan.dtype, {m.cols}, Order::kRowMajor);
  T* out = static_cast<T*>(g.data());
  std::fill(out, out + m.cols, T{0});
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t j = 0; j < m.cols; ++j) out[j] += shares[b * m.cols + j];
  }
  g_matvec_pair_runs.fetch_add(1, std::memory_order_relaxed);
  return one_value(std::move(g));
}

}  // namespace

OpFn matvec_pair_run(MatvecPairPlan plan) {
  auto shared = std::make_shared<const MatvecPairPlan>(std::move(plan));
  return [shared](Interpreter&, const Values& args) -> Values {
    return shared->dtype == DType::kF64 ? run_pair<double>(*shared, args)
                                        : run_pair<float>(*shared, args);
  };
}

int64_t matvec_pair_runs() { return g_matvec_pair_runs.load(std::memory_order_relaxed); }

}  // namespace ndbuf::program
