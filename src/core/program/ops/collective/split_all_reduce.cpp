// The shared-out all_reduce (split_all_reduce.hpp).
#include "program/ops/collective/split_all_reduce.hpp"

#include <algorithm>
#include <cstring>

#include "memory/stream_store.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/ops/collective/collective.hpp"
#include "program/spmd/flat_range.hpp"

namespace ndbuf::program {
namespace {

// A chunk of a member's range, folded into scratch that stays in the core's L2 cache (1 MiB on
// the test machine); larger chunks mean fewer kernel calls (128 KiB: 256 calls for 32 MB).
constexpr int64_t kChunkBytes = int64_t{512} << 10;

}  // namespace

bool splits_all_reduce(const Combine& combine, int64_t bytes, size_t members) {
  return members > 1 && combine.is_native() && bytes >= kSplitAllReduceBytes;
}

Tensor split_all_reduce(Interpreter& in, const Combine& combine, const std::vector<int>& group,
                        const std::string& what, const Tensor& operand) {
  ExecContext& context = in.context();
  const Tensor mine = make_dense(operand, Order::kRowMajor);
  const Tensor result = Tensor::allocate(mine.dtype(), mine.shape(), Order::kRowMajor);
  const CollectiveParts parts = exchange(context, group, {what, {mine, result}});
  const auto members = static_cast<int64_t>(group.size());
  const int64_t position = position_in(group, context.process);
  const int64_t n = mine.numel();
  const int64_t begin = n * position / members;
  const int64_t end = n * (position + 1) / members;
  // Chunk by chunk: folded into a scratch chunk that stays in the core's L2 cache, then
  // written to every member's result with non-temporal stores. Plain stores would first read
  // each line of the results from memory (the results are far larger than the caches). 64 MB
  // over 2 devices: 10.0-10.8 ms, against 11.2-11.4 ms folding 128 KiB chunks into the first
  // result and copying them.
  const int64_t chunk =
      std::max<int64_t>(1, kChunkBytes / static_cast<int64_t>(itemsize(mine.dtype())));
  const Tensor scratch = Tensor::allocate(mine.dtype(), {chunk}, Order::kRowMajor);
  for (int64_t at = begin; at < end; at += chunk) {
    const int64_t stop = std::min(end, at + chunk);
    const Tensor folded = flat_range(scratch, 0, stop - at);
    Tensor acc = flat_range((*parts)[0].tensors[0], at, stop);
    for (int64_t m = 1; m < members; ++m) {
      acc = combine.into(acc, flat_range((*parts)[static_cast<size_t>(m)].tensors[0], at, stop),
                         folded);
    }
    const size_t bytes = static_cast<size_t>(folded.nbytes());
    for (int64_t m = 0; m < members; ++m) {
      stream_copy(flat_range((*parts)[static_cast<size_t>(m)].tensors[1], at, stop).data(),
                  acc.data(), bytes);
    }
  }
  stream_fence();
  // No member leaves before every range of its result is written.
  exchange(context, group, {what + " (written)", {}});
  return result;
}

}  // namespace ndbuf::program
