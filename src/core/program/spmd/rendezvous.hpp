// Where the processes of a many-device run meet for a collective op: each member of a process
// group deposits its part, waits until every member has, and reads all parts. Waits are
// bounded: a peer that failed, never arrives (it runs another program, or fewer collectives) or
// arrives at a different collective makes every member fail with an error saying which, never
// hang. Parts are tensors shared read-only: a member reads the others' while they may already
// be computing on; a tensor held here is never updated in place (its storage is shared).
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

namespace ndbuf::program {

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
             const std::atomic<bool>& cancelled);

  const ProcessGrid& grid() const { return grid_; }

  // Process `self`'s next exchange among `group` (flat process numbers, `self` among them):
  // returns every member's part in the group's order. The n-th exchange of one process within
  // a group meets the n-th of every other member within the same group.
  CollectiveParts exchange(int self, const std::vector<int>& group, CollectivePart mine);

  // `process` ended with an error: exchanges waiting now or started later fail, naming it.
  void abandon(int process, const std::string& why);

 private:
  using Key = std::pair<std::vector<int>, int64_t>;
  struct Slot {
    std::vector<CollectivePart> parts;
    std::vector<bool> present;
    int arrived = 0;
    int left = 0;
    CollectiveParts all;
  };

  Slot& join(const Key& key, size_t members, size_t position, CollectivePart mine);
  [[noreturn]] void fail_wait(int self, const std::vector<int>& group, const Slot& slot) const;

  ProcessGrid grid_;
  std::chrono::milliseconds timeout_;
  const std::atomic<bool>& cancelled_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<Key, Slot> slots_;
  std::vector<std::map<std::vector<int>, int64_t>> sequence_;  // per process, per group
  std::string failure_;  // the first process that failed, and why
};

}  // namespace ndbuf::program
