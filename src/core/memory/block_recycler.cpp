// A short list of unmapped-on-demand blocks, guarded by one mutex (allocations this large are
// few, so the list stays short and the lock uncontended).
#include "ndbuf/memory/block_recycler.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "ndbuf/base/environment.hpp"
#include "ndbuf/memory/huge_pages.hpp"

namespace ndbuf {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kPageBytes = size_t{64} << 10;  // capacities are rounded to this

struct KeptBlock {
  LargeBlock block;
  Clock::time_point since;
};

struct Recycler {
  std::mutex mutex;
  std::vector<KeptBlock> kept;
  size_t kept_bytes = 0;
  pid_t owner = 0;
};

Recycler& recycler() {
  static Recycler* instance = new Recycler();  // never destroyed: used until exit
  return *instance;
}

void unmap(LargeBlock block) noexcept { munmap(block.data, block.capacity); }

void forget_at(Recycler& r, size_t k) {
  r.kept_bytes -= r.kept[k].block.capacity;
  r.kept.erase(r.kept.begin() + static_cast<std::ptrdiff_t>(k));
}

// Called with the mutex held. A forked child holds copy-on-write copies of its parent's kept
// blocks: writing one would copy every page, so the child unmaps them instead of using them.
// The list is in release order, so the blocks unused too long are a prefix of it: checking from
// the front keeps every call's cost independent of how many blocks are kept.
void expire(Recycler& r, Clock::time_point now, double max_age_seconds) noexcept {
  const pid_t self = getpid();
  const bool forked = r.owner != self;
  r.owner = self;
  const auto decay = std::chrono::duration<double>(max_age_seconds);
  size_t stale = 0;
  while (stale < r.kept.size() && (forked || now - r.kept[stale].since > decay)) {
    unmap(r.kept[stale].block);
    r.kept_bytes -= r.kept[stale].block.capacity;
    ++stale;
  }
  r.kept.erase(r.kept.begin(), r.kept.begin() + static_cast<std::ptrdiff_t>(stale));
}

size_t rounded_capacity(size_t nbytes) {
  return (nbytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}

// Called with the mutex held: the kept block that fits `nbytes` most closely (at most a quarter
// of `nbytes` above the capacity a fresh mapping would get), the last released of equal ones,
// or r.kept.size() when none does. The last released is the one most likely still in the
// caches: a loop whose result is dropped and collected each time then writes into the block it
// just wrote, as PyTorch does. Searched from the last released, so a block of exactly the
// fresh capacity ends the search.
size_t best_fit(const Recycler& r, size_t nbytes) {
  const size_t wanted = rounded_capacity(nbytes);
  size_t best = r.kept.size();
  for (size_t k = r.kept.size(); k-- > 0;) {
    const size_t capacity = r.kept[k].block.capacity;
    if (capacity < nbytes || capacity - wanted > nbytes / 4) continue;
    if (capacity == wanted) return k;
    if (best == r.kept.size() || capacity < r.kept[best].block.capacity) best = k;
  }
  return best;
}

std::atomic<size_t> g_acquired_bytes{0};

LargeBlock map_fresh(size_t nbytes) noexcept {
  if (nbytes > SIZE_MAX - kPageBytes) return {nullptr, 0};  // rounding up would wrap
  const size_t capacity = rounded_capacity(nbytes);
  void* data = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) return {nullptr, 0};
  advise_huge_pages(data, capacity);
  return {data, capacity};
}

}  // namespace

size_t recycle_limit_bytes() noexcept {
  const WholeNumberSetting mib = whole_number_setting("PJRT_RECYCLE_MB");
  if (!mib.valid() || mib.value < 0) return size_t{1024} << 20;
  const auto whole = static_cast<unsigned long long>(mib.value);
  return whole > (size_t{1} << 30) ? size_t{1} << 50 : static_cast<size_t>(whole) << 20;
}

LargeBlock acquire_large_block(size_t nbytes) noexcept {
  g_acquired_bytes.fetch_add(nbytes, std::memory_order_relaxed);
  Recycler& r = recycler();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    expire(r, Clock::now(), kRecycleDecaySeconds);
    const size_t best = best_fit(r, nbytes);
    if (best < r.kept.size()) {
      const LargeBlock block = r.kept[best].block;
      forget_at(r, best);
      return block;
    }
  }
  return map_fresh(nbytes);
}

bool large_block_kept(size_t nbytes) noexcept {
  Recycler& r = recycler();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.owner == getpid() && best_fit(r, nbytes) < r.kept.size();
}

size_t large_bytes_acquired() noexcept { return g_acquired_bytes.load(std::memory_order_relaxed); }

void release_large_block(LargeBlock block) noexcept {
  if (block.data == nullptr) return;
  const size_t limit = recycle_limit_bytes();
  Recycler& r = recycler();
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    const Clock::time_point now = Clock::now();
    expire(r, now, kRecycleDecaySeconds);
    // A lowered limit applies to what is kept already. Oldest first: the list is in release
    // order.
    const bool keep = block.capacity <= limit;
    const size_t incoming = keep ? block.capacity : 0;
    while (!r.kept.empty() &&
           (r.kept_bytes + incoming > limit || (keep && r.kept.size() >= kRecycleMaxBlocks))) {
      unmap(r.kept.front().block);
      forget_at(r, 0);
    }
    if (keep) {
      r.kept.push_back({block, now});
      r.kept_bytes += block.capacity;
      return;
    }
  }
  unmap(block);
}

size_t recycled_bytes() noexcept {
  Recycler& r = recycler();
  const std::lock_guard<std::mutex> lock(r.mutex);
  return r.owner == getpid() ? r.kept_bytes : 0;
}

void expire_recycled_blocks(double max_age_seconds) noexcept {
  Recycler& r = recycler();
  const std::lock_guard<std::mutex> lock(r.mutex);
  expire(r, Clock::now(), max_age_seconds);
}

void drop_recycled_blocks() noexcept {
  Recycler& r = recycler();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const KeptBlock& kept : r.kept) unmap(kept.block);
  r.kept.clear();
  r.kept_bytes = 0;
}

}  // namespace ndbuf
