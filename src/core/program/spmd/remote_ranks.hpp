// The processes of a distributed run that live in other operating-system processes (ranks):
// what the rendezvous needs from a transport between ranks. MPI provides it (mpi_ranks.cpp);
// the core's tests provide an in-process one. Every call waits at most until `limit.deadline`
// and gives up on a user interrupt, raising an ndbuf::Error that says which.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

struct WaitLimit {
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* cancelled = nullptr;  // set on a user interrupt
};

// A collective's body applied element by element: target = body(a, b), all three dense and of
// one shape (target may be a or b).
using FoldInto = std::function<void(const Tensor& a, const Tensor& b, const Tensor& target)>;

class RemoteRanks {
 public:
  virtual ~RemoteRanks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank of `ranks` (ascending, this one among them) contributes `mine`; returns each
  // one's bytes in the order of `ranks`. The n-th call on `channel` (a number the caller
  // derives from its process group: calls on different channels may run at once) meets the
  // n-th call on that channel of every other rank.
  virtual std::vector<std::string> allgather(const std::vector<int>& ranks, uint64_t channel,
                                             const std::string& mine, const WaitLimit& limit) = 0;
  // Collectives over every rank, where the transport has its own; false (nothing exchanged)
  // where it has not for this type or fold, and the caller falls back to allgather(). Tensors
  // are dense row-major; they are passed whole so that a transport whose wait failed can keep
  // their memory alive while its own operation may still touch it.
  // out = the fold of every rank's `in` (same type and shape) by `fold`; every rank gets the
  // same bits.
  virtual bool allreduce(const Tensor& in, const Tensor& out, const FoldInto& fold,
                         const WaitLimit& limit) = 0;
  // out = every rank's `in` (all of one size) concatenated in rank order.
  virtual bool allgather_blocks(const Tensor& in, const Tensor& out, const WaitLimit& limit) = 0;
};

}  // namespace ndbuf::program
