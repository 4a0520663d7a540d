// Storage and the host allocation every CPU tensor starts from.
#include "ndbuf/memory/storage.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/block_recycler.hpp"
#include "ndbuf/memory/huge_pages.hpp"
#include "ndbuf/memory/storage_pool.hpp"

namespace ndbuf {
namespace {

std::atomic<HostAllocator> g_host_allocator{&default_host_allocator};
std::atomic<std::thread::id> g_allocator_thread{};
std::atomic<int64_t> g_host_allocations{0};

[[noreturn]] void fail_host_allocation(size_t nbytes) {
  fail(ErrorKind::kOutOfMemory,
       "Cannot allocate " + std::to_string(nbytes) + " bytes of host memory.");
}

// Blocks under kRecycleMinBytes: malloc() of kHostAlignment bytes more, the block starting at
// the first boundary past the first byte, and its distance from malloc's address kept in the
// byte before it. glibc's posix_memalign() cuts each block out of a larger chunk and frees the
// pieces either side, which cost a 400-byte block about 500 instructions to allocate and 250 to
// free against malloc's 60 and 40 (a program of 12 small results makes 12 a call).
void* allocate_small_bytes(size_t nbytes) {
  auto* raw = static_cast<unsigned char*>(std::malloc(nbytes + kHostAlignment));
  if (raw == nullptr) {
    fail_host_allocation(nbytes);
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw) + 1;
  const size_t offset = 1 + (kHostAlignment - start % kHostAlignment) % kHostAlignment;
  raw[offset - 1] = static_cast<unsigned char>(offset);
  return raw + offset;
}

void free_small_bytes(void* data) noexcept {
  auto* block = static_cast<unsigned char*>(data);
  std::free(block - block[-1]);
}

static_assert(kHostAlignment <= 255, "a small block's offset must fit its byte");

}  // namespace

void set_host_allocator(HostAllocator allocator) {
  g_allocator_thread.store(std::this_thread::get_id());
  g_host_allocator.store(allocator != nullptr ? allocator : &default_host_allocator);
}

// Large blocks start on a huge page boundary and are advised before anything touches them,
// so their first writes fault in 2 MiB pages. posix_memalign() for every size keeps one
// release function (free) whatever the alignment.
void* allocate_host_bytes(size_t nbytes) {
  const bool large = nbytes >= kHugePageMinBytes;
  void* data = nullptr;
  if (posix_memalign(&data, large ? kHugePageBytes : kHostAlignment, nbytes > 0 ? nbytes : 1) !=
      0) {
    fail_host_allocation(nbytes);
  }
  if (large) advise_huge_pages(data, nbytes);
  return data;
}

void free_host_bytes(void* data) noexcept { std::free(data); }

HostBlock acquire_host_block(size_t nbytes) {
  if (nbytes < kRecycleMinBytes) return HostBlock{allocate_small_bytes(nbytes), 0};
  const LargeBlock block = acquire_large_block(nbytes);
  if (block.data == nullptr) {
    fail_host_allocation(nbytes);
  }
  return HostBlock{block.data, block.capacity};
}

void release_host_block(HostBlock block) noexcept {
  if (block.capacity == 0) {
    free_small_bytes(block.data);
  } else {
    release_large_block(LargeBlock{block.data, block.capacity});
  }
}

std::shared_ptr<Storage> default_host_allocator(size_t nbytes, Device device) {
  const HostBlock block = acquire_host_block(nbytes);
  try {
    return std::make_shared<Storage>(
        block.data, nbytes, device, [block](void*) { release_host_block(block); }, false);
  } catch (...) {
    release_host_block(block);
    throw;
  }
}

int64_t host_allocation_count() noexcept {
  return g_host_allocations.load(std::memory_order_relaxed);
}

std::shared_ptr<Storage> allocate_host(size_t nbytes, Device device) {
  g_host_allocations.fetch_add(1, std::memory_order_relaxed);
  if (std::this_thread::get_id() != g_allocator_thread.load()) {
    return default_host_allocator(nbytes, device);
  }
  return g_host_allocator.load()(nbytes, device);
}

}  // namespace ndbuf
