// The CUDA implementation of DeviceApi over the CUDA driver API, loaded with dlopen. Only the
// few types and functions used are declared here, so neither the CUDA toolkit nor its headers
// are needed to build. Each GPU is used through its primary context (the one the CUDA runtime
// and other libraries share), retained on first use and kept for the life of the process;
// every call pushes it and pops it again, leaving the caller's current context alone.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"

namespace ndbuf {
namespace {

// The driver API's types (cuda.h): results and devices are ints, contexts opaque pointers,
// device addresses 64-bit integers.
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorOutOfMemory = 2;
constexpr CUresult kErrorNoDevice = 100;

const char kUnavailable[] = "The cuda platform is not available on this machine: ";

// The driver functions used, bound by their exported names (the _v2 entry points are the
// 64-bit versions that cuda.h maps the plain names to).
struct Driver {
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*device_get_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*ctx_push_current)(CUcontext) = nullptr;
  CUresult (*ctx_pop_current)(CUcontext*) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpy_dtod)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpy_peer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t) = nullptr;
  CUresult (*mem_get_info)(size_t*, size_t*) = nullptr;
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
  CUresult (*get_error_string)(CUresult, const char**) = nullptr;
};

template <class Fn>
void bind(void* library, const std::string& path, const char* name, Fn& fn) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) {
    fail(ErrorKind::kDevice, std::string(kUnavailable) + "the CUDA driver library " + path +
                                 " has no function " + name + " (the driver may be too old).");
  }
  static_assert(sizeof fn == sizeof symbol, "function and object pointers differ in size");
  std::memcpy(&fn, &symbol, sizeof fn);
}

void bind_all(void* library, const std::string& path, Driver& d) {
  bind(library, path, "cuInit", d.init);
  bind(library, path, "cuDeviceGetCount", d.device_get_count);
  bind(library, path, "cuDeviceGet", d.device_get);
  bind(library, path, "cuDevicePrimaryCtxRetain", d.primary_ctx_retain);
  bind(library, path, "cuCtxPushCurrent_v2", d.ctx_push_current);
  bind(library, path, "cuCtxPopCurrent_v2", d.ctx_pop_current);
  bind(library, path, "cuCtxSynchronize", d.ctx_synchronize);
  bind(library, path, "cuMemAlloc_v2", d.mem_alloc);
  bind(library, path, "cuMemFree_v2", d.mem_free);
  bind(library, path, "cuMemcpyHtoD_v2", d.memcpy_htod);
  bind(library, path, "cuMemcpyDtoH_v2", d.memcpy_dtoh);
  bind(library, path, "cuMemcpyDtoD_v2", d.memcpy_dtod);
  bind(library, path, "cuMemcpyPeer", d.memcpy_peer);
  bind(library, path, "cuMemGetInfo_v2", d.mem_get_info);
  bind(library, path, "cuGetErrorName", d.get_error_name);
  bind(library, path, "cuGetErrorString", d.get_error_string);
}

CUdeviceptr to_device_ptr(const void* ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

class CudaApi final : public DeviceApi {
 public:
  explicit CudaApi(const std::string& path) {
    library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library_ == nullptr) {
      const char* reason = dlerror();
      fail(ErrorKind::kDevice, std::string(kUnavailable) + "no CUDA driver was found (" +
                                   (reason != nullptr ? reason : path) + ").");
    }
    // The library stays loaded even when a check below fails: drivers do not expect to be
    // unloaded once cuInit has run.
    bind_all(library_, path, d_);
    const CUresult init = d_.init(0);
    if (init == kErrorNoDevice) {
      fail(ErrorKind::kDevice,
           std::string(kUnavailable) + "the CUDA driver found no GPU (" + error_text(init) + ").");
    }
    if (init != kSuccess) {
      fail(ErrorKind::kDevice, std::string(kUnavailable) +
                                   "the CUDA driver could not be initialised (" + error_text(init) +
                                   ").");
    }
    int count = 0;
    const CUresult counted = d_.device_get_count(&count);
    if (counted != kSuccess || count <= 0) {
      fail(ErrorKind::kDevice, std::string(kUnavailable) + "the CUDA driver found no GPU" +
                                   (counted != kSuccess ? " (" + error_text(counted) + ")" : "") +
                                   ".");
    }
    count_ = count;
    contexts_ = std::make_unique<std::atomic<CUcontext>[]>(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) contexts_[k].store(nullptr);
  }

  Platform platform() const noexcept override { return Platform::kCuda; }
  int count() override { return count_; }

  void* allocate(int index, size_t nbytes) override {
    const Scope scope(*this, index);
    if (nbytes == 0) return nullptr;  // cuMemAlloc rejects zero bytes
    CUdeviceptr ptr = 0;
    const CUresult result = d_.mem_alloc(&ptr, nbytes);
    if (result == kErrorOutOfMemory) {
      size_t free_bytes = 0;
      size_t total_bytes = 0;
      const bool known = d_.mem_get_info(&free_bytes, &total_bytes) == kSuccess;
      fail(ErrorKind::kOutOfMemory,
           "Cannot allocate " + format_bytes(nbytes) + " on " + label(index) +
               ": the GPU is out of memory" +
               (known ? " (" + format_bytes(free_bytes, false) + " free of " +
                            format_bytes(total_bytes, false) + ")"
                      : std::string()) +
               ".");
    }
    check(result, "cuMemAlloc_v2", index);
    return reinterpret_cast<void*>(static_cast<uintptr_t>(ptr));
  }

  void free(int index, void* ptr) noexcept override {
    if (ptr == nullptr || index < 0 || index >= count_) return;
    const CUcontext context = contexts_[index].load();
    if (context == nullptr || d_.ctx_push_current(context) != kSuccess) return;
    // A failure here (a driver already shut down at exit) leaves nothing to do.
    (void)d_.mem_free(to_device_ptr(ptr));
    CUcontext popped = nullptr;
    (void)d_.ctx_pop_current(&popped);
  }

  void copy_host_to_device(int index, void* dst, const void* src, size_t nbytes) override {
    if (nbytes == 0) return;
    const Scope scope(*this, index);
    check(d_.memcpy_htod(to_device_ptr(dst), src, nbytes), "cuMemcpyHtoD_v2", index);
  }

  void copy_device_to_host(int index, void* dst, const void* src, size_t nbytes) override {
    if (nbytes == 0) return;
    const Scope scope(*this, index);
    check(d_.memcpy_dtoh(dst, to_device_ptr(src), nbytes), "cuMemcpyDtoH_v2", index);
  }

  // Device-to-device copies are asynchronous to the host, so both sides are synchronised.
  void copy_device_to_device(int dst_index, void* dst, int src_index, const void* src,
                             size_t nbytes) override {
    if (nbytes == 0) return;
    if (dst_index == src_index) {
      const Scope scope(*this, dst_index);
      check(d_.memcpy_dtod(to_device_ptr(dst), to_device_ptr(src), nbytes), "cuMemcpyDtoD_v2",
            dst_index);
      check(d_.ctx_synchronize(), "cuCtxSynchronize", dst_index);
      return;
    }
    const CUcontext src_context = context(src_index);
    {
      const Scope scope(*this, dst_index);
      check(d_.memcpy_peer(to_device_ptr(dst), context(dst_index), to_device_ptr(src), src_context,
                           nbytes),
            "cuMemcpyPeer", dst_index);
      check(d_.ctx_synchronize(), "cuCtxSynchronize", dst_index);
    }
    synchronize(src_index);
  }

  void synchronize(int index) override {
    const Scope scope(*this, index);
    check(d_.ctx_synchronize(), "cuCtxSynchronize", index);
  }

  void memory_info(int index, size_t* free_bytes, size_t* total_bytes) override {
    const Scope scope(*this, index);
    check(d_.mem_get_info(free_bytes, total_bytes), "cuMemGetInfo_v2", index);
  }

 private:
  // Makes the device's primary context current for the lifetime of the scope.
  class Scope {
   public:
    Scope(CudaApi& api, int index) : api_(api) {
      const CUcontext context = api.context(index);
      api.check(api.d_.ctx_push_current(context), "cuCtxPushCurrent_v2", index);
    }
    ~Scope() {
      CUcontext popped = nullptr;
      (void)api_.d_.ctx_pop_current(&popped);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CudaApi& api_;
  };

  // The primary context of GPU `index`, retained on first use.
  CUcontext context(int index) {
    check_device_index(Platform::kCuda, index, count_);
    CUcontext context = contexts_[index].load();
    if (context != nullptr) return context;
    const std::lock_guard<std::mutex> lock(retain_mutex_);
    context = contexts_[index].load();
    if (context != nullptr) return context;
    CUdevice device = 0;
    check(d_.device_get(&device, index), "cuDeviceGet", index);
    check(d_.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain", index);
    contexts_[index].store(context);
    return context;
  }

  std::string label(int index) const { return device_label(Device{Platform::kCuda, index}); }

  // "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
  std::string error_text(CUresult result) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (d_.get_error_name(result, &name) != kSuccess) name = nullptr;
    if (d_.get_error_string(result, &text) != kSuccess) text = nullptr;
    std::string out = name != nullptr ? name : "CUDA error " + std::to_string(result);
    if (text != nullptr) out += std::string(": ") + text;
    return out;
  }

  void check(CUresult result, const char* call, int index) const {
    if (result == kSuccess) return;
    const ErrorKind kind =
        result == kErrorOutOfMemory ? ErrorKind::kOutOfMemory : ErrorKind::kDevice;
    fail(kind, std::string("The CUDA driver call ") + call + " failed on " + label(index) + ": " +
                   error_text(result) + ".");
  }

  void* library_ = nullptr;
  Driver d_;
  int count_ = 0;
  std::unique_ptr<std::atomic<CUcontext>[]> contexts_;
  std::mutex retain_mutex_;
};

}  // namespace

std::unique_ptr<DeviceApi> load_cuda_api(const std::string& path) {
  return std::make_unique<CudaApi>(path);
}

}  // namespace ndbuf
