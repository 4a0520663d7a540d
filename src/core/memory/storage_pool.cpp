// A pool of host storages for one execution (storage_pool.hpp).
#include "ndbuf/memory/storage_pool.hpp"

namespace ndbuf {
namespace {

thread_local StoragePool* t_pool = nullptr;

}  // namespace

std::shared_ptr<Storage> StoragePool::take(size_t nbytes, Device device) {
  std::vector<std::shared_ptr<Storage>>& same_size = by_size_[nbytes];
  for (const std::shared_ptr<Storage>& storage : same_size) {
    if (storage.use_count() == 1 && storage->device() == device) {
      ++reused_;
      return storage;
    }
  }
  std::shared_ptr<Storage> fresh = allocate_host(nbytes, device);
  if (nbytes < kMaxBytes && kept_bytes_ + nbytes <= kMaxKeptBytes) {
    same_size.push_back(fresh);
    kept_bytes_ += nbytes;
  }
  return fresh;
}

bool StoragePool::holds(const Storage* storage) const {
  const auto it = by_size_.find(storage->nbytes());
  if (it == by_size_.end()) return false;
  for (const std::shared_ptr<Storage>& kept : it->second) {
    if (kept.get() == storage) return true;
  }
  return false;
}

void StoragePool::forget(const Storage* storage) noexcept {
  const auto it = by_size_.find(storage->nbytes());
  if (it == by_size_.end()) return;
  std::vector<std::shared_ptr<Storage>>& same_size = it->second;
  for (size_t k = 0; k < same_size.size(); ++k) {
    if (same_size[k].get() != storage) continue;
    same_size[k] = std::move(same_size.back());
    same_size.pop_back();
    kept_bytes_ -= storage->nbytes();
    return;
  }
}

void StoragePool::clear() noexcept {
  by_size_.clear();
  kept_bytes_ = 0;
}

PoolScope::PoolScope(StoragePool& pool) : previous_(t_pool) { t_pool = &pool; }

PoolScope::~PoolScope() { t_pool = previous_; }

StoragePool* current_pool() noexcept { return t_pool; }

}  // namespace ndbuf
