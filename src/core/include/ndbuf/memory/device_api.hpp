// The memory interface of a device platform: allocate, free, copy host->device, device->host,
// device->device and synchronise. CPU devices use host memory; CUDA devices use GPU memory
// through the CUDA driver library, loaded at run time with dlopen (no CUDA toolkit is needed to
// build). Device pointers of other platforms are opaque: only the platform's DeviceApi may
// dereference them, so everything that reads values goes through to_host() (transfer.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/storage.hpp"

namespace ndbuf {

class DeviceApi {
 public:
  virtual ~DeviceApi() = default;

  virtual Platform platform() const noexcept = 0;
  // Number of devices; throws kDevice when the platform is missing.
  virtual int count() = 0;
  // Uninitialised memory on device `index`; zero bytes give a null pointer. Throws
  // kOutOfMemory when the device is full and kDevice for any other failure.
  virtual void* allocate(int index, size_t nbytes) = 0;
  // Releases memory from allocate(); a null pointer is ignored.
  virtual void free(int index, void* ptr) noexcept = 0;
  // Synchronous copies: when they return, the destination holds the bytes and the source may be
  // released or changed.
  virtual void copy_host_to_device(int index, void* dst, const void* src, size_t nbytes) = 0;
  virtual void copy_device_to_host(int index, void* dst, const void* src, size_t nbytes) = 0;
  virtual void copy_device_to_device(int dst_index, void* dst, int src_index, const void* src,
                                     size_t nbytes) = 0;
  // Waits for all work queued on the device.
  virtual void synchronize(int index) = 0;
  // Free and total bytes of device memory.
  virtual void memory_info(int index, size_t* free_bytes, size_t* total_bytes) = 0;
};

// The platform's implementation. CUDA is loaded on first use from the library named by the
// environment variable PJRT_CUDA_DRIVER_PATH, else "libcuda.so.1"; the outcome is kept for the
// life of the process, and a failure is rethrown (kDevice, naming the reason) on every call.
DeviceApi& device_api(Platform platform);

// A CUDA implementation over the driver library at `path`, loaded now. Throws kDevice with a
// message starting "The cuda platform is not available on this machine: " when the library,
// one of its functions or a GPU is missing. device_api(Platform::kCuda) is the shared one;
// this is for tests and diagnostics.
std::unique_ptr<DeviceApi> load_cuda_api(const std::string& path);

// The driver library device_api() loads: PJRT_CUDA_DRIVER_PATH, else "libcuda.so.1".
std::string cuda_driver_path();

// Called once when a device allocation runs out of memory, before the one retry: the embedding
// runtime frees what it no longer needs (R runs its garbage collector, whose finalizers release
// unreachable buffers). Must be safe to call wherever allocations happen (R: the main thread).
using MemoryReclaimer = void (*)();
void set_memory_reclaimer(MemoryReclaimer reclaimer);

// Uninitialised memory for `nbytes` on `device`: host memory from the host allocator for CPU
// devices, device memory otherwise. A device that is full gets one reclaim and one retry, then
// kOutOfMemory naming the device, the size and the free memory.
std::shared_ptr<Storage> allocate_storage(size_t nbytes, Device device);

// "1.5 GiB (1610612736 bytes)", or "1.5 GiB" when not `exact`: sizes in messages.
std::string format_bytes(size_t nbytes, bool exact = true);

}  // namespace ndbuf
