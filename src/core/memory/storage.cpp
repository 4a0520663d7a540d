// Storage and the host allocation every CPU tensor starts from.
#include "ndbuf/memory/storage.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/huge_pages.hpp"

namespace ndbuf {
namespace {

std::atomic<HostAllocator> g_host_allocator{&default_host_allocator};
std::atomic<std::thread::id> g_allocator_thread{};

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
    fail(ErrorKind::kOutOfMemory,
         "Cannot allocate " + std::to_string(nbytes) + " bytes of host memory.");
  }
  if (large) advise_huge_pages(data, nbytes);
  return data;
}

void free_host_bytes(void* data) noexcept { std::free(data); }

std::shared_ptr<Storage> default_host_allocator(size_t nbytes, Device device) {
  void* data = allocate_host_bytes(nbytes);
  try {
    return std::make_shared<Storage>(data, nbytes, device, &free_host_bytes, false);
  } catch (...) {
    free_host_bytes(data);
    throw;
  }
}

std::shared_ptr<Storage> allocate_host(size_t nbytes, Device device) {
  if (std::this_thread::get_id() != g_allocator_thread.load()) {
    return default_host_allocator(nbytes, device);
  }
  return g_host_allocator.load()(nbytes, device);
}

}  // namespace ndbuf
