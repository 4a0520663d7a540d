// The meeting point of collective ops (rendezvous.hpp).
#include "program/spmd/rendezvous.hpp"

#include <algorithm>

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {
namespace {

// How often a waiting member looks at the cancel flag (a user interrupt).
constexpr std::chrono::milliseconds kCancelPoll{20};

std::string member_list(const ProcessGrid& grid, const std::vector<int>& members) {
  std::string out;
  for (int m : members) out += (out.empty() ? "" : ", ") + grid.name(m);
  return out;
}

}  // namespace

Rendezvous::Rendezvous(ProcessGrid grid, std::chrono::milliseconds timeout,
                       const std::atomic<bool>& cancelled)
    : grid_(grid),
      timeout_(timeout),
      cancelled_(cancelled),
      sequence_(static_cast<size_t>(grid.size())) {}

Rendezvous::Slot& Rendezvous::join(const Key& key, size_t members, size_t position,
                                   CollectivePart mine) {
  Slot& slot = slots_[key];
  if (slot.parts.empty()) {
    slot.parts.resize(members);
    slot.present.resize(members, false);
  }
  slot.parts[position] = std::move(mine);
  slot.present[position] = true;
  if (++slot.arrived == static_cast<int>(members)) {
    slot.all = std::make_shared<const std::vector<CollectivePart>>(std::move(slot.parts));
    arrived_.notify_all();
  }
  return slot;
}

CollectiveParts Rendezvous::exchange(int self, const std::vector<int>& group, CollectivePart mine) {
  const auto at = std::find(group.begin(), group.end(), self);
  if (at == group.end()) {
    fail(ErrorKind::kInvalidArgument, "process " + grid_.name(self) + " is not in its group");
  }
  std::unique_lock<std::mutex> lock(mutex_);
  const Key key{group, sequence_[static_cast<size_t>(self)][group]++};
  const std::string what = mine.what;
  Slot& slot = join(key, group.size(), static_cast<size_t>(at - group.begin()), std::move(mine));
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!slot.all) {
    if (!failure_.empty() || cancelled_.load() || std::chrono::steady_clock::now() >= deadline) {
      fail_wait(self, group, slot);
    }
    arrived_.wait_for(lock, kCancelPoll);
  }
  CollectiveParts all = slot.all;
  if (++slot.left == static_cast<int>(group.size())) slots_.erase(key);
  for (size_t k = 0; k < all->size(); ++k) {
    if ((*all)[k].what != what) {
      fail(ErrorKind::kInvalidArgument, "mismatched collectives: process " + grid_.name(self) +
                                            " runs " + what + " but process " +
                                            grid_.name(group[k]) + " runs " + (*all)[k].what);
    }
  }
  return all;
}

void Rendezvous::fail_wait(int self, const std::vector<int>& group, const Slot& slot) const {
  if (cancelled_.load()) fail(ErrorKind::kInterrupted, "Interrupted by the user.");
  if (!failure_.empty()) {
    fail(ErrorKind::kDevice,
         "a collective of process " + grid_.name(self) + " cannot complete: " + failure_);
  }
  std::vector<int> missing;
  for (size_t k = 0; k < group.size(); ++k) {
    if (!slot.present[k]) missing.push_back(group[k]);
  }
  fail(ErrorKind::kDevice,
       "a collective of process " + grid_.name(self) + " waited " +
           std::to_string(timeout_.count()) + " ms for process" +
           (missing.size() == 1 ? " " : "es ") + member_list(grid_, missing) +
           ", which never arrived (a different program, fewer collectives, or a stalled device)");
}

void Rendezvous::abandon(int process, const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_.empty()) failure_ = "process " + grid_.name(process) + " failed: " + why;
  arrived_.notify_all();
}

}  // namespace ndbuf::program
