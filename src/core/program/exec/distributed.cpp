// Connecting ranks and the state of a distributed run (distributed.hpp).
#include "program/exec/distributed.hpp"

#include <cstring>
#include <mutex>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/program.hpp"
#include "program/exec/process_launch.hpp"
#include "program/spmd/mpi_ranks.hpp"

namespace ndbuf::program {
namespace {

// Channels of the exchanges made here, apart from any process group's.
constexpr uint64_t kDeviceCountChannel = 0x64657669636573ULL;
constexpr uint64_t kFingerprintChannel = 0x70726f6772616dULL;

struct World {
  std::unique_ptr<RemoteRanks> remote;
  DistributedInfo info;
};

std::mutex& world_mutex() {
  static std::mutex mutex;
  return mutex;
}

World& world() {
  static World w;
  return w;
}

std::vector<int> all_ranks(int size) {
  std::vector<int> ranks(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) ranks[static_cast<size_t>(r)] = r;
  return ranks;
}

std::string as_bytes(uint64_t value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

uint64_t from_bytes(const std::string& bytes, int rank) {
  uint64_t value = 0;
  if (bytes.size() != sizeof value) {
    fail(ErrorKind::kDevice, "rank " + std::to_string(rank) + " sent a malformed message");
  }
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

WaitLimit limit_of(int64_t timeout_ms) {
  const std::chrono::milliseconds timeout =
      timeout_ms > 0 ? std::chrono::milliseconds(timeout_ms) : default_collective_timeout();
  return {std::chrono::steady_clock::now() + timeout, nullptr};
}

}  // namespace

RankSpread distributed_spread(int processes) {
  std::lock_guard<std::mutex> lock(world_mutex());
  const World& w = world();
  RankSpread spread;
  if (!w.info.active || w.info.size < 2) return spread;
  std::vector<int> first{0};
  for (int count : w.info.devices) first.push_back(first.back() + count);
  if (first.back() != processes) return spread;
  spread.remote = w.remote.get();
  spread.first = std::move(first);
  return spread;
}

DistributedInfo connect_ranks(std::unique_ptr<RemoteRanks> remote, int local_devices,
                              const WaitLimit& limit) {
  const std::vector<std::string> counts =
      remote->allgather(all_ranks(remote->size()), kDeviceCountChannel,
                        as_bytes(static_cast<uint64_t>(local_devices)), limit);
  DistributedInfo info;
  info.active = true;
  info.rank = remote->rank();
  info.size = remote->size();
  info.mpi_built_in = mpi_built_in();
  for (int r = 0; r < info.size; ++r) {
    const uint64_t count = from_bytes(counts[static_cast<size_t>(r)], r);
    if (count < 1 || count > 1 << 16) {
      fail(ErrorKind::kDevice, "rank " + std::to_string(r) + " runs " + std::to_string(count) +
                                   " devices; each rank needs at least one");
    }
    if (r < info.rank) info.first_process += static_cast<int>(count);
    info.devices.push_back(static_cast<int>(count));
  }
  std::lock_guard<std::mutex> lock(world_mutex());
  world().remote = std::move(remote);
  world().info = info;
  return info;
}

void check_same_program(const RankSpread& spread, uint64_t fingerprint, const WaitLimit& limit) {
  const std::vector<std::string> prints = spread.remote->allgather(
      all_ranks(spread.remote->size()), kFingerprintChannel, as_bytes(fingerprint), limit);
  for (size_t r = 0; r < prints.size(); ++r) {
    const uint64_t theirs = from_bytes(prints[r], static_cast<int>(r));
    if (theirs != fingerprint) {
      fail(ErrorKind::kInvalidArgument,
           "rank " + std::to_string(spread.remote->rank()) + " and rank " + std::to_string(r) +
               " run different programs (fingerprints " + std::to_string(fingerprint) + " and " +
               std::to_string(theirs) + "): every rank must compile the same program text");
    }
  }
}

DistributedInfo init_distributed(int local_devices, int64_t timeout_ms) {
  if (local_devices < 1) {
    fail(ErrorKind::kInvalidArgument,
         "a rank runs at least one device, not " + std::to_string(local_devices));
  }
  {
    std::lock_guard<std::mutex> lock(world_mutex());
    const DistributedInfo& info = world().info;
    if (info.active) {
      if (info.devices[static_cast<size_t>(info.rank)] != local_devices) {
        fail(ErrorKind::kInvalidArgument,
             "this process joined its ranks with " +
                 std::to_string(info.devices[static_cast<size_t>(info.rank)]) +
                 " device(s) already; it cannot join again with " + std::to_string(local_devices));
      }
      return info;
    }
  }
  return connect_ranks(connect_mpi(), local_devices, limit_of(timeout_ms));
}

DistributedInfo distributed_info() {
  std::lock_guard<std::mutex> lock(world_mutex());
  DistributedInfo info = world().info;
  info.mpi_built_in = mpi_built_in();
  if (!info.active) info.devices = {};
  return info;
}

void end_distributed() { finalize_mpi(); }

}  // namespace ndbuf::program
