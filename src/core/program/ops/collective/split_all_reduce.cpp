// The shared-out all_reduce (split_all_reduce.hpp).
#include "program/ops/collective/split_all_reduce.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "memory/stream_store.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/ops/collective/collective.hpp"
#include "program/ops/elementwise/span_kernels.hpp"
#include "program/spmd/flat_range.hpp"

namespace ndbuf::program {
namespace {

// A chunk of a member's range, folded into scratch that stays in the core's L2 cache (1 MiB on
// the test machine); larger chunks mean fewer kernel calls (128 KiB: 256 calls for 32 MB).
constexpr int64_t kChunkBytes = int64_t{512} << 10;
// The span f32 and f64 fold through: in the core's L1 cache beside the lines it reads, and
// its kernel costs no call overhead worth a larger span.
constexpr int64_t kStagedBytes = int64_t{16} << 10;

// Folds elements [begin, end) of every member's operand, in group order, into `result` through
// a staging span written out with non-temporal stores; false when `op` has no span kernel.
template <class T>
bool fold_spans(BinaryOp op, const std::vector<CollectivePart>& parts, int64_t begin, int64_t end,
                T* result) {
  const SpanBinaryFn<T> kernel = span_binary<T>(op);
  if (kernel == nullptr) return false;
  constexpr auto kStaged = static_cast<int64_t>(kStagedBytes / sizeof(T));
  std::vector<T> staged(static_cast<size_t>(kStaged));
  for (int64_t at = begin; at < end; at += kStaged) {
    const int64_t n = std::min(end - at, kStaged);
    const T* acc = static_cast<const T*>(parts[0].tensors[0].data()) + at;
    for (size_t m = 1; m < parts.size(); ++m) {
      kernel(acc, static_cast<const T*>(parts[m].tensors[0].data()) + at, staged.data(), n);
      acc = staged.data();
    }
    stream_copy(result + at, acc, static_cast<size_t>(n) * sizeof(T));
  }
  return true;
}

// The same through Combine::into() for the other element types, a chunk at a time.
void fold_chunks(const Combine& combine, const std::vector<CollectivePart>& parts, int64_t begin,
                 int64_t end, const Tensor& result) {
  const int64_t chunk =
      std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(itemsize(result.dtype())));
  const Tensor scratch = Tensor::allocate(result.dtype(), {chunk}, Order::kRowMajor);
  for (int64_t at = begin; at < end; at += chunk) {
    const int64_t stop = std::min(end, at + chunk);
    const Tensor folded = flat_range(scratch, 0, stop - at);
    Tensor acc = flat_range(parts[0].tensors[0], at, stop);
    for (size_t m = 1; m < parts.size(); ++m) {
      acc = combine.into(acc, flat_range(parts[m].tensors[0], at, stop), folded);
    }
    stream_copy(flat_range(result, at, stop).data(), acc.data(),
                static_cast<size_t>(folded.nbytes()));
  }
}

}  // namespace

bool splits_all_reduce(const Combine& combine, int64_t bytes, size_t members) {
  return members > 1 && combine.is_native() && bytes >= kSplitAllReduceBytes;
}

Tensor split_all_reduce(Interpreter& in, const Combine& combine, const std::vector<int>& group,
                        const std::string& what, const Tensor& operand) {
  ExecContext& context = in.context();
  const Tensor mine = make_dense(operand, Order::kRowMajor);
  const int64_t position = position_in(group, context.process);
  // Every member's result holds the same values, so the group writes one block, which the
  // first member allocates and every member returns as its own device's result (shared_on()).
  // Separate results would double the writes (64 MB over 2 devices: 10.0-10.8 ms, 2.2x a
  // 64 MB copy).
  std::vector<Tensor> offered{mine};
  if (position == 0) {
    offered.push_back(Tensor::allocate(mine.dtype(), mine.shape(), Order::kRowMajor));
  }
  const CollectiveParts parts = exchange(context, group, {what, std::move(offered)});
  const Tensor& result = (*parts)[0].tensors[1];
  const auto members = static_cast<int64_t>(group.size());
  const int64_t n = mine.numel();
  const int64_t begin = n * position / members;
  const int64_t end = n * (position + 1) / members;
  // Written around the caches: plain stores would first read each line of the result from
  // memory (the result is far larger than the caches).
  const BinaryOp op = *combine.native_op();
  const bool spans = (mine.dtype() == DType::kF32 &&
                      fold_spans(op, *parts, begin, end, static_cast<float*>(result.data()))) ||
                     (mine.dtype() == DType::kF64 &&
                      fold_spans(op, *parts, begin, end, static_cast<double*>(result.data())));
  if (!spans) fold_chunks(combine, *parts, begin, end, result);
  stream_fence();
  // No member leaves before every range of the result is written.
  exchange(context, group, {what + " (written)", {}});
  return shared_on(result, context.device);
}

}  // namespace ndbuf::program
