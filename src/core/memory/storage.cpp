#include "ndbuf/memory/storage.hpp"

#include <atomic>
#include <new>
#include <string>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

std::atomic<HostAllocator> g_host_allocator{&default_host_allocator};

}  // namespace

void set_host_allocator(HostAllocator allocator) {
  g_host_allocator.store(allocator != nullptr ? allocator : &default_host_allocator);
}

std::shared_ptr<Storage> default_host_allocator(size_t nbytes, Device device) {
  const std::align_val_t alignment{kHostAlignment};
  void* data = ::operator new(nbytes > 0 ? nbytes : 1, alignment, std::nothrow);
  if (data == nullptr) {
    fail(ErrorKind::kOutOfMemory,
         "Cannot allocate " + std::to_string(nbytes) + " bytes of host memory.");
  }
  return std::make_shared<Storage>(
      data, nbytes, device,
      [](void* p) { ::operator delete (p, std::align_val_t{kHostAlignment}); }, false);
}

std::shared_ptr<Storage> allocate_host(size_t nbytes, Device device) {
  return g_host_allocator.load()(nbytes, device);
}

}  // namespace ndbuf
