// A block of memory on a device: pointer, byte size, device, deleter and a read-only flag
// (the DLPack managed-tensor descriptor is the model). Views share a Storage through
// std::shared_ptr, so whichever view dies last frees it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "ndbuf/memory/device.hpp"

namespace ndbuf {

class Storage {
 public:
  // Called exactly once with `data`; must not throw.
  using Deleter = std::function<void(void*)>;

  Storage(void* data, size_t nbytes, Device device, Deleter deleter, bool read_only,
          bool shared_result = false)
      : data_(data),
        nbytes_(nbytes),
        device_(device),
        deleter_(std::move(deleter)),
        read_only_(read_only || shared_result),
        shared_result_(shared_result) {}
  ~Storage() {
    if (deleter_) deleter_(data_);
  }
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const noexcept { return data_; }
  size_t nbytes() const noexcept { return nbytes_; }
  const Device& device() const noexcept { return device_; }
  // Memory ndbuf does not own outright (an R vector, a mapped file) is read-only.
  bool read_only() const noexcept { return read_only_; }
  // Memory that the results of several CPU devices of one process share (a large all_reduce's
  // one result block, which every member reads): read-only, so nothing writes it in place, yet
  // a run hands it out as a result without copying it.
  bool shared_result() const noexcept { return shared_result_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
  bool read_only_;
  bool shared_result_;
};

inline constexpr size_t kHostAlignment = 64;

// Host allocations go through a replaceable allocator so that an embedding runtime (R) can
// make its garbage collector see them. The default uses acquire_host_block(). An installed
// allocator serves only the thread that installed it (an embedding runtime such as R may be
// called from its main thread alone); parallel loops' threads get default_host_allocator().
using HostAllocator = std::shared_ptr<Storage> (*)(size_t nbytes, Device device);
void set_host_allocator(HostAllocator allocator);
std::shared_ptr<Storage> default_host_allocator(size_t nbytes, Device device);

// Uninitialised, kHostAlignment-aligned host memory; throws kOutOfMemory on failure.
std::shared_ptr<Storage> allocate_host(size_t nbytes, Device device = Device{});

// Host memory for one Storage. Blocks of kRecycleMinBytes or more come from the block
// recycler (block_recycler.hpp): a dead tensor's block keeps its pages mapped for the next
// tensor of about its size, so a loop that makes large results (an execution per batch) stops
// paying a page fault per page of each one. Smaller blocks come from malloc(), which reuses
// memory by itself, aligned by an offset it keeps before the block. `capacity` is 0 for those.
struct HostBlock {
  void* data = nullptr;
  size_t capacity = 0;
};
// At least `nbytes` (one byte when 0), kHostAlignment-aligned, uninitialised; throws
// kOutOfMemory as allocate_host_bytes() does.
HostBlock acquire_host_block(size_t nbytes);
void release_host_block(HostBlock block) noexcept;

// The raw host allocation under acquire_host_block() and the CPU DeviceApi: at least one
// byte, kHostAlignment-aligned (blocks of kHugePageMinBytes or more: huge-page aligned and
// advised, see huge_pages.hpp); throws kOutOfMemory "Cannot allocate <n> bytes of host
// memory." Release with free_host_bytes().
void* allocate_host_bytes(size_t nbytes);
void free_host_bytes(void* data) noexcept;

}  // namespace ndbuf
