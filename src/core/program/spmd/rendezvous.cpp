// The meeting point of collective ops (rendezvous.hpp).
#include "program/spmd/rendezvous.hpp"

#include <algorithm>

#include "ndbuf/base/error.hpp"
#include "program/spmd/part_codec.hpp"

namespace ndbuf::program {
namespace {

// How often a waiting member looks at the cancel flag (a user interrupt).
constexpr std::chrono::milliseconds kCancelPoll{20};

std::string member_list(const ProcessGrid& grid, const std::vector<int>& members) {
  std::string out;
  for (int m : members) out += (out.empty() ? "" : ", ") + grid.name(m);
  return out;
}

// A number for a process group, the same on every rank (FNV-1a over its members).
uint64_t group_channel(const std::vector<int>& group) {
  uint64_t h = 14695981039346656037ULL;
  for (int m : group) {
    h ^= static_cast<uint64_t>(m) + 1;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

int RankSpread::rank_of(int process) const {
  const auto after = std::upper_bound(first.begin(), first.end(), process);
  return static_cast<int>(after - first.begin()) - 1;
}

bool RankSpread::one_per_rank() const {
  return remote != nullptr && static_cast<int>(first.size()) == remote->size() + 1 &&
         first.back() == remote->size();
}

Rendezvous::Rendezvous(ProcessGrid grid, std::chrono::milliseconds timeout,
                       const std::atomic<bool>& cancelled, RankSpread spread)
    : grid_(grid),
      spread_(std::move(spread)),
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
  CollectiveParts all;
  if (spans_ranks(group)) {
    all = exchange_across(lock, self, group, key, std::move(mine));
  } else {
    Slot& slot = join(key, group.size(), static_cast<size_t>(at - group.begin()), std::move(mine));
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    while (!slot.all) {
      if (!failure_.empty() || cancelled_.load() || std::chrono::steady_clock::now() >= deadline) {
        fail_wait(self, group, slot);
      }
      arrived_.wait_for(lock, kCancelPoll);
    }
    all = slot.all;
    if (++slot.left == static_cast<int>(group.size())) slots_.erase(key);
  }
  for (size_t k = 0; k < all->size(); ++k) {
    if ((*all)[k].what != what) {
      fail(ErrorKind::kInvalidArgument, "mismatched collectives: process " + grid_.name(self) +
                                            " runs " + what + " but process " +
                                            grid_.name(group[k]) + " runs " + (*all)[k].what);
    }
  }
  return all;
}

bool Rendezvous::spans_ranks(const std::vector<int>& group) const {
  if (spread_.remote == nullptr) return false;
  return std::any_of(group.begin(), group.end(), [&](int m) { return !spread_.is_local(m); });
}

WaitLimit Rendezvous::limit() const {
  return {std::chrono::steady_clock::now() + timeout_, &cancelled_};
}

CollectiveParts Rendezvous::exchange_across(std::unique_lock<std::mutex>& lock, int self,
                                            const std::vector<int>& group, const Key& key,
                                            CollectivePart mine) {
  std::vector<int> locals;
  for (int m : group) {
    if (spread_.is_local(m)) locals.push_back(m);
  }
  const auto members = static_cast<int>(locals.size());
  const size_t position =
      static_cast<size_t>(std::find(locals.begin(), locals.end(), self) - locals.begin());
  Slot& slot = slots_[key];
  if (slot.parts.empty()) {
    slot.parts.resize(locals.size());
    slot.present.resize(locals.size(), false);
  }
  slot.parts[position] = std::move(mine);
  slot.present[position] = true;
  if (++slot.arrived == members) {
    // The last of this rank's members: the others wait while it talks to the other ranks.
    lock.unlock();
    try {
      CollectiveParts all = send_and_receive(group, slot);
      lock.lock();
      slot.all = std::move(all);
    } catch (const std::exception& e) {
      lock.lock();
      slot.error = e.what();
      arrived_.notify_all();
      if (++slot.left == members) slots_.erase(key);
      throw;
    }
    arrived_.notify_all();
  } else {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    while (!slot.all && slot.error.empty()) {
      // Once every member is here the last one's exchange is bounded by its own deadline.
      const bool exchanging = slot.arrived == members;
      if (!exchanging && (!failure_.empty() || cancelled_.load() ||
                          std::chrono::steady_clock::now() >= deadline)) {
        fail_wait(self, locals, slot);
      }
      arrived_.wait_for(lock, kCancelPoll);
    }
  }
  CollectiveParts all = slot.all;
  const std::string error = slot.error;
  if (++slot.left == members) slots_.erase(key);
  if (!error.empty()) fail(ErrorKind::kDevice, error);
  return all;
}

CollectiveParts Rendezvous::send_and_receive(const std::vector<int>& group, const Slot& slot) {
  std::vector<PlacedPart> placed;
  std::vector<int> ranks;
  size_t local = 0;
  for (size_t k = 0; k < group.size(); ++k) {
    const int rank = spread_.rank_of(group[k]);
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) ranks.push_back(rank);
    if (spread_.is_local(group[k])) placed.emplace_back(static_cast<int>(k), slot.parts[local++]);
  }
  std::sort(ranks.begin(), ranks.end());
  std::vector<const PlacedPart*> mine;
  for (const PlacedPart& p : placed) mine.push_back(&p);
  const std::vector<std::string> messages =
      spread_.remote->allgather(ranks, group_channel(group), encode_parts(mine), limit());
  std::vector<CollectivePart> parts(group.size());
  std::vector<bool> filled(group.size(), false);
  for (size_t r = 0; r < ranks.size(); ++r) {
    const std::string from = "rank " + std::to_string(ranks[r]);
    for (PlacedPart& p : decode_parts(messages[r], from)) {
      const auto k = static_cast<size_t>(p.first);
      if (p.first < 0 || k >= group.size() || filled[k] || spread_.rank_of(group[k]) != ranks[r]) {
        fail(ErrorKind::kDevice, "a collective's message from " + from +
                                     " is for another group: the ranks run different programs");
      }
      filled[k] = true;
      parts[k] = std::move(p.second);
    }
  }
  for (size_t k = 0; k < group.size(); ++k) {
    if (!filled[k]) {
      fail(ErrorKind::kDevice, "rank " + std::to_string(spread_.rank_of(group[k])) +
                                   " sent no part for process " + grid_.name(group[k]) +
                                   ": the ranks run different programs");
    }
  }
  return std::make_shared<const std::vector<CollectivePart>>(std::move(parts));
}

bool Rendezvous::fold_across(const std::vector<int>& group, const Tensor& in, const Tensor& out,
                             const FoldInto& fold) {
  if (!spread_.one_per_rank() || static_cast<int>(group.size()) != spread_.remote->size()) {
    return false;
  }
  return spread_.remote->allreduce(in, out, fold, limit());
}

bool Rendezvous::gather_across(const std::vector<int>& group, const Tensor& in, const Tensor& out) {
  if (!spread_.one_per_rank() || static_cast<int>(group.size()) != spread_.remote->size() ||
      !std::is_sorted(group.begin(), group.end())) {
    return false;
  }
  return spread_.remote->allgather_blocks(in, out, limit());
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
