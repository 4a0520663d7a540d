// The CPU device memory interface, platform lookup, device allocation with reclaiming.
#include "ndbuf/memory/device_api.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/storage_pool.hpp"

namespace ndbuf {
namespace {

std::atomic<MemoryReclaimer> g_reclaimer{nullptr};

void check_cpu_index(int index) {
  check_device_index(Platform::kCpu, index, device_count(Platform::kCpu));
}

// Host memory. Storage for CPU devices comes from the replaceable host allocator
// (storage.hpp) so that R sees it; this is the same memory for direct users of the interface.
class CpuApi final : public DeviceApi {
 public:
  Platform platform() const noexcept override { return Platform::kCpu; }
  int count() override { return device_count(Platform::kCpu); }

  void* allocate(int index, size_t nbytes) override {
    check_cpu_index(index);
    if (nbytes == 0) return nullptr;
    return allocate_host_bytes(nbytes);
  }
  void free(int, void* ptr) noexcept override {
    if (ptr != nullptr) free_host_bytes(ptr);
  }
  void copy_host_to_device(int, void* dst, const void* src, size_t nbytes) override {
    if (nbytes > 0) std::memcpy(dst, src, nbytes);
  }
  void copy_device_to_host(int, void* dst, const void* src, size_t nbytes) override {
    if (nbytes > 0) std::memcpy(dst, src, nbytes);
  }
  void copy_device_to_device(int, void* dst, int, const void* src, size_t nbytes) override {
    if (nbytes > 0) std::memmove(dst, src, nbytes);
  }
  void synchronize(int index) override { check_cpu_index(index); }
  void memory_info(int index, size_t* free_bytes, size_t* total_bytes) override {
    check_cpu_index(index);
    const long page = sysconf(_SC_PAGESIZE);
    const long total = sysconf(_SC_PHYS_PAGES);
#ifdef _SC_AVPHYS_PAGES
    const long available = sysconf(_SC_AVPHYS_PAGES);
#else
    const long available = total;
#endif
    *total_bytes = page > 0 && total > 0 ? static_cast<size_t>(page) * total : 0;
    *free_bytes = page > 0 && available > 0 ? static_cast<size_t>(page) * available : 0;
  }
};

// The shared CUDA implementation, loaded once. It is never destroyed: buffers released while
// the process exits still free their memory through it.
DeviceApi& cuda_api() {
  static std::once_flag once;
  static DeviceApi* api = nullptr;
  static std::string* failure = nullptr;
  std::call_once(once, [] {
    try {
      api = load_cuda_api(cuda_driver_path()).release();
    } catch (const Error& e) {
      failure = new std::string(e.what());
    }
  });
  if (api == nullptr) fail(ErrorKind::kDevice, *failure);
  return *api;
}

// Device memory owned by a Storage; `api` outlives every storage (see cuda_api()).
std::shared_ptr<Storage> wrap_device_memory(DeviceApi& api, void* ptr, size_t nbytes,
                                            Device device) {
  const int index = device.index;
  try {
    return std::make_shared<Storage>(
        ptr, nbytes, device, [&api, index](void* p) { api.free(index, p); }, false);
  } catch (...) {
    api.free(index, ptr);
    throw;
  }
}

}  // namespace

DeviceApi& device_api(Platform platform) {
  static CpuApi cpu;
  if (platform == Platform::kCpu) return cpu;
  return cuda_api();
}

std::string cuda_driver_path() {
  const char* env = std::getenv("PJRT_CUDA_DRIVER_PATH");
  return env != nullptr && *env != '\0' ? env : "libcuda.so.1";
}

void set_memory_reclaimer(MemoryReclaimer reclaimer) { g_reclaimer.store(reclaimer); }

std::shared_ptr<Storage> allocate_storage(size_t nbytes, Device device) {
  if (is_host(device)) {
    StoragePool* pool = current_pool();
    return pool != nullptr && nbytes < StoragePool::kMaxBytes ? pool->take(nbytes, device)
                                                              : allocate_host(nbytes, device);
  }
  DeviceApi& api = device_api(device.platform);
  void* ptr = nullptr;
  try {
    ptr = api.allocate(device.index, nbytes);
  } catch (const Error& first) {
    const MemoryReclaimer reclaim = g_reclaimer.load();
    if (first.kind() != ErrorKind::kOutOfMemory || reclaim == nullptr) throw;
    reclaim();
    try {
      ptr = api.allocate(device.index, nbytes);
    } catch (const Error& second) {
      if (second.kind() != ErrorKind::kOutOfMemory) throw;
      std::string message = second.what();
      if (!message.empty() && message.back() == '.') message.pop_back();
      fail(ErrorKind::kOutOfMemory, message + ", even after unused buffers were released.");
    }
  }
  return wrap_device_memory(api, ptr, nbytes, device);
}

std::string format_bytes(size_t nbytes, bool exact) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (nbytes < 1024) return std::to_string(nbytes) + (nbytes == 1 ? " byte" : " bytes");
  double value = static_cast<double>(nbytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (exact) {
    std::snprintf(text, sizeof text, "%.1f %s (%zu bytes)", value, kUnits[unit], nbytes);
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

}  // namespace ndbuf
