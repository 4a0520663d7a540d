// Where the processes of a many-device run meet for a collective op: each member of a process
// group deposits its part, waits until every member has, and reads all parts. Waits are
// bounded: a peer that failed, never arrives (it runs another program, or fewer collectives) or
// arrives at a different collective makes every member fail with an error saying which, never
// hang. Parts are tensors shared read-only: a member reads the others' while they may already
// be computing on; a tensor held here is never updated in place (its storage is shared).
// In a distributed run (RankSpread) some members live in other ranks: the members of this rank
// meet here first, then the last to arrive sends their parts to the other ranks and receives
// theirs through the transport (remote_ranks.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/spmd/process_grid.hpp"
#include "program/spmd/remote_ranks.hpp"

namespace ndbuf::program {

// Which rank runs each process of the grid: rank r runs processes [first[r], first[r + 1]).
struct RankSpread {
  RemoteRanks* remote = nullptr;  // null: every process runs here
  std::vector<int> first;         // one per rank, then the grid's size

  int rank_of(int process) const;
  bool is_local(int process) const {
    return remote == nullptr || rank_of(process) == remote->rank();
  }
  // Every rank runs one process: the transport's own collectives over all ranks then apply.
  bool one_per_rank() const;
};

struct CollectivePart {
  // The collective and its operand types ("all_reduce (tensor<4xi64>)"): members must agree.
  std::string what;
  std::vector<Tensor> tensors;
};

using CollectiveParts = std::shared_ptr<const std::vector<CollectivePart>>;

class Rendezvous {
 public:
  // `cancelled` is set by the launching thread on a user interrupt: every wait then throws
  // kInterrupted.
  Rendezvous(ProcessGrid grid, std::chrono::milliseconds timeout,
             const std::atomic<bool>& cancelled, RankSpread spread = {});

  const ProcessGrid& grid() const { return grid_; }
  const RankSpread& spread() const { return spread_; }

  // Process `self`'s next exchange among `group` (flat process numbers, `self` among them):
  // returns every member's part in the group's order. The n-th exchange of one process within
  // a group meets the n-th of every other member within the same group.
  CollectiveParts exchange(int self, const std::vector<int>& group, CollectivePart mine);

  // `process` ended with an error: exchanges waiting now or started later fail, naming it.
  void abandon(int process, const std::string& why);

  // Some member of `group` runs in another rank.
  bool spans_ranks(const std::vector<int>& group) const;

  // out = the fold of every member's `in` by the transport itself, when the group is one
  // process on each rank and the transport folds `in`'s type that way; false otherwise (then
  // exchange() is the way). `in` and `out` dense, of one type and shape.
  bool fold_across(const std::vector<int>& group, const Tensor& in, const Tensor& out,
                   const FoldInto& fold);
  // out = every member's `in` (dense, one shape) concatenated in group order, by the transport
  // itself, under the same conditions; false otherwise.
  bool gather_across(const std::vector<int>& group, const Tensor& in, const Tensor& out);

 private:
  using Key = std::pair<std::vector<int>, int64_t>;
  struct Slot {
    std::vector<CollectivePart> parts;
    std::vector<bool> present;
    int arrived = 0;
    int left = 0;
    CollectiveParts all;
    std::string error;  // the exchange with other ranks failed
  };

  Slot& join(const Key& key, size_t members, size_t position, CollectivePart mine);
  [[noreturn]] void fail_wait(int self, const std::vector<int>& group, const Slot& slot) const;
  WaitLimit limit() const;
  // This rank's members of `group` meet; the last one exchanges their parts with the other
  // ranks' (lock held on entry and return).
  CollectiveParts exchange_across(std::unique_lock<std::mutex>& lock, int self,
                                  const std::vector<int>& group, const Key& key,
                                  CollectivePart mine);
  CollectiveParts send_and_receive(const std::vector<int>& group, const Slot& slot);

  ProcessGrid grid_;
  RankSpread spread_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>& cancelled_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<Key, Slot> slots_;
  std::vector<std::map<std::vector<int>, int64_t>> sequence_;  // per process, per group
  std::string failure_;  // the first process that failed, and why
};

}  // namespace ndbuf::program
