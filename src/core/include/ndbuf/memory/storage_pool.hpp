// Host memory an execution hands from one result to the next: a loop's iteration makes the
// same results as the one before, whose storage is free again by then, so a pool that keeps
// every small storage it handed out, and hands one out again once nothing else holds it, lets
// a steady-state iteration allocate nothing. The pool is one execution's (never shared between
// threads); the code that allocates reaches it through PoolScope, as it reaches its device
// through DeviceScope.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ndbuf/memory/storage.hpp"

namespace ndbuf {

class StoragePool {
 public:
  // Storages of this many bytes or more are not kept (the block recycler keeps large blocks),
  // nor any beyond kMaxKeptBytes in all.
  static constexpr size_t kMaxBytes = size_t{1} << 20;
  static constexpr size_t kMaxKeptBytes = size_t{64} << 20;

  StoragePool() = default;
  StoragePool(const StoragePool&) = delete;
  StoragePool& operator=(const StoragePool&) = delete;

  // A storage of exactly `nbytes` on host device `device` that nothing but the pool holds, else
  // a fresh one (allocate_host()), kept when it is small and the pool has room.
  std::shared_ptr<Storage> take(size_t nbytes, Device device);
  // Whether the pool holds `storage`: one more holder than the values that share it.
  bool holds(const Storage* storage) const;
  // Lets go of `storage` (a result about to be handed out is then held by itself alone, and
  // its memory is the caller's); nothing when the pool does not hold it.
  void forget(const Storage* storage) noexcept;
  // Lets go of every storage.
  void clear() noexcept;
  size_t kept_bytes() const noexcept { return kept_bytes_; }
  int64_t reused() const noexcept { return reused_; }

 private:
  std::unordered_map<size_t, std::vector<std::shared_ptr<Storage>>> by_size_;
  size_t kept_bytes_ = 0;
  int64_t reused_ = 0;
};

// Makes `pool` the calling thread's pool: host allocations through allocate_storage() below
// StoragePool::kMaxBytes take from it until the scope ends. Scopes nest.
class PoolScope {
 public:
  explicit PoolScope(StoragePool& pool);
  ~PoolScope();
  PoolScope(const PoolScope&) = delete;
  PoolScope& operator=(const PoolScope&) = delete;

 private:
  StoragePool* previous_;
};

// The calling thread's pool, or nullptr outside a PoolScope.
StoragePool* current_pool() noexcept;

// Host storages allocate_host() has made since the process started (what tests of allocation-
// free loops count; storages handed out again by a pool are not counted).
int64_t host_allocation_count() noexcept;

}  // namespace ndbuf
