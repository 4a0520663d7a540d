// Guards reads of mapped files against the file changing underneath (see mapped_file.hpp):
// a registry of live mappings, a SIGBUS handler that turns lost pages into zero pages, and
// the checks that turn either kind of change into an error.
#include "io/mapped_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/io/mapped_file.hpp"

namespace ndbuf {
namespace {

// What the signal handler sees of a mapping: plain atomics, read without locks (a handler
// may run on any thread, in the middle of anything).
struct Slot {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};

constexpr size_t kSlotsPerBlock = 1024;
struct SlotBlock {
  Slot slots[kSlotsPerBlock];
  std::atomic<SlotBlock*> next{nullptr};  // blocks are never freed, so a handler never races
};

// What the checks see of a mapping (under the mutex).
struct Watched {
  std::string path;
  size_t nbytes;
  struct stat at_load;
  Slot* slot;
  std::chrono::steady_clock::time_point checked{};  // the last stat() that found no change
};

// A stat() costs microseconds (tens in some sandboxes) and a binding may check the same
// buffer several times, so a mapping found unchanged is not checked again for this long.
// Truncation is caught regardless (by the fault); a same-size in-place rewrite is noticed by
// reads that start after this interval.
constexpr auto kRecheckInterval = std::chrono::milliseconds(1);

SlotBlock g_first_block;
std::atomic<uint64_t> g_faults{0};
std::atomic<uintptr_t> g_last_fault_begin{0};
uintptr_t g_page_size = 4096;
struct sigaction g_previous;

std::mutex g_mutex;
std::map<uintptr_t, Watched> g_mappings;  // by first address
std::vector<Slot*> g_free_slots;
SlotBlock* g_last_block = &g_first_block;

// Faults outside our mappings go where they would have gone without us. A default (or
// ignored, which the kernel overrides for faults) action is restored and the faulting access
// re-runs (a sent signal is sent again), ending the process exactly as it would have.
void chain(int sig, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else {
    struct sigaction fallback = {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, nullptr);
    if (info->si_code <= 0) raise(sig);  // sent, not a fault: nothing re-runs, so send again
  }
}

// A page of a mapped file that no longer exists (the file shrank): the rest of the mapping
// becomes zero pages, the mapping is marked, and the read goes on; the caller's check then
// fails the operation. Only async-signal-safe calls here (mmap, atomics).
void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (SlotBlock* block = &g_first_block; block != nullptr; block = block->next.load()) {
    for (Slot& slot : block->slots) {
      const uintptr_t begin = slot.begin.load();
      const uintptr_t end = slot.end.load();
      if (begin == 0 || address < begin || address >= end) continue;
      const uintptr_t page = address & ~(g_page_size - 1);
      void* zeros = mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (zeros == MAP_FAILED) break;
      slot.faulted.store(true);
      g_last_fault_begin.store(begin);
      g_faults.fetch_add(1);
      return;
    }
  }
  chain(sig, info, context);
}

void install_handler() {
  g_page_size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  struct sigaction action = {};
  action.sa_sigaction = &on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGBUS, &action, &g_previous);
}

Slot* take_slot() {
  if (g_free_slots.empty()) {
    auto* block = new SlotBlock;
    g_last_block->next.store(block);
    g_last_block = block;
    for (Slot& slot : block->slots) g_free_slots.push_back(&slot);
  }
  Slot* slot = g_free_slots.back();
  g_free_slots.pop_back();
  return slot;
}

bool same_time(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// The path still names the mapped file (same inode) and its size or modification time moved.
// A file replaced by rename, or deleted, leaves the mapped inode as it was.
bool changed_on_disk(const Watched& watched) {
  struct stat now;
  if (::stat(watched.path.c_str(), &now) != 0) return false;
  if (now.st_dev != watched.at_load.st_dev || now.st_ino != watched.at_load.st_ino) return false;
  return now.st_size != watched.at_load.st_size || !same_time(now.st_mtim, watched.at_load.st_mtim);
}

[[noreturn]] void fail_changed(const std::string& path) {
  fail(ErrorKind::kIo, "The file '" + path +
                           "' changed on disk after it was loaded (it was truncated or "
                           "rewritten in place), so buffers loaded from it cannot be read; "
                           "load it again.");
}

}  // namespace

void watch_mapping(const void* data, size_t nbytes, const std::string& path,
                   const struct stat& at_load) {
  static std::once_flag installed;
  std::call_once(installed, install_handler);
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t end = begin + ((nbytes + g_page_size - 1) & ~(g_page_size - 1));
  const std::lock_guard<std::mutex> lock(g_mutex);
  Slot* slot = take_slot();
  slot->faulted.store(false);
  slot->end.store(end);
  slot->begin.store(begin);
  g_mappings[begin] = Watched{path, nbytes, at_load, slot, {}};
}

void unwatch_mapping(const void* data) noexcept {
  const std::lock_guard<std::mutex> lock(g_mutex);
  const auto found = g_mappings.find(reinterpret_cast<uintptr_t>(data));
  if (found == g_mappings.end()) return;
  Slot* slot = found->second.slot;
  slot->begin.store(0);
  slot->end.store(0);
  g_free_slots.push_back(slot);
  g_mappings.erase(found);
}

void check_mapping_intact(const void* data) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto found = g_mappings.upper_bound(address);
  if (found == g_mappings.begin()) return;
  --found;
  const Watched& watched = found->second;
  if (address >= found->first + watched.nbytes) return;
  if (watched.slot->faulted.load()) fail_changed(watched.path);
  const auto now = std::chrono::steady_clock::now();
  if (now - watched.checked < kRecheckInterval) return;
  if (changed_on_disk(watched)) fail_changed(watched.path);
  found->second.checked = now;
}

bool lies_in_mapped_file(const void* data) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto found = g_mappings.upper_bound(address);
  if (found == g_mappings.begin()) return false;
  --found;
  return address < found->first + found->second.nbytes;
}

uint64_t mapping_fault_count() noexcept { return g_faults.load(); }

void check_no_mapping_faults(uint64_t before) {
  if (g_faults.load() == before) return;
  std::string path = "(unknown)";
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    const auto found = g_mappings.find(g_last_fault_begin.load());
    if (found != g_mappings.end()) path = found->second.path;
  }
  fail_changed(path);
}

}  // namespace ndbuf
