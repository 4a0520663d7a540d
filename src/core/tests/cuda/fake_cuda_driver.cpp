// A stand-in for the CUDA driver library (libcuda.so.1), built only with the tests, so that the
// whole GPU code path of ndbuf runs on machines without a GPU. It exports the driver functions
// ndbuf binds, under the same names and signatures, and keeps "device memory" in host memory.
//
// It is stricter than the real driver where that catches bugs:
// - Device addresses are non-canonical (0x0dec... on x86-64), so host code that dereferences
//   one crashes at once instead of silently reading the right bytes.
// - Every memory call needs a current context, and the memory it touches must belong to the
//   device of that context (cuMemcpyPeer names its contexts instead).
// - Copies must stay inside one live allocation; frees must name the start of one.
//
// Configuration, read by the first successful cuInit: NDBUF_FAKE_CUDA_DEVICES (default 2) and
// NDBUF_FAKE_CUDA_MEMORY_MB (memory per device, default 256). NDBUF_FAKE_CUDA_INIT_ERROR, read
// by every cuInit, makes it fail with that code (100: no device). The ndbuf_fake_cuda_*
// functions at the end let tests inspect the state and inject failures.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidContext = 201;

constexpr CUdeviceptr kAddressBase = 0x0dec000000000000ULL;
constexpr int kDeviceAddressBits = 44;
constexpr int kMaxDevices = 16;

struct Context {
  int device;
};

struct Block {
  int device;
  size_t size;
  char* host;
};

struct State {
  std::mutex mutex;
  bool initialized = false;
  int device_count = 0;
  size_t capacity = 0;
  Context contexts[kMaxDevices];
  int retains[kMaxDevices] = {};
  size_t used[kMaxDevices] = {};
  CUdeviceptr next[kMaxDevices] = {};
  std::map<CUdeviceptr, Block> blocks;
  CUresult fail_next_copy = kSuccess;
};

State& state() {
  static State* s = new State();  // never destroyed: frees may come during exit
  return *s;
}

thread_local std::vector<Context*> t_stack;

long env_number(const char* name, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtol(text, nullptr, 10);
}

int current_device() { return t_stack.empty() ? -1 : t_stack.back()->device; }

// The host bytes behind [ptr, ptr + size) on `device`, or null when that range is not inside
// one live allocation of that device. Call with the mutex held.
char* resolve(State& s, CUdeviceptr ptr, size_t size, int device) {
  auto it = s.blocks.upper_bound(ptr);
  if (it == s.blocks.begin()) return nullptr;
  --it;
  const CUdeviceptr base = it->first;
  const Block& block = it->second;
  if (block.device != device || ptr - base > block.size || size > block.size - (ptr - base)) {
    return nullptr;
  }
  return block.host + (ptr - base);
}

Context* as_context(void* ctx) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  for (int d = 0; d < s.device_count; ++d) {
    if (ctx == &s.contexts[d] && s.retains[d] > 0) return &s.contexts[d];
  }
  return nullptr;
}

CUresult take_injected_failure(State& s) {
  const CUresult code = s.fail_next_copy;
  s.fail_next_copy = kSuccess;
  return code;
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return kInvalidValue;
  const long injected = env_number("NDBUF_FAKE_CUDA_INIT_ERROR", 0);
  if (injected != 0) return static_cast<CUresult>(injected);
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.initialized) return kSuccess;
  const long devices = env_number("NDBUF_FAKE_CUDA_DEVICES", 2);
  s.device_count =
      devices < 0 ? 0 : (devices > kMaxDevices ? kMaxDevices : static_cast<int>(devices));
  s.capacity = static_cast<size_t>(env_number("NDBUF_FAKE_CUDA_MEMORY_MB", 256)) << 20;
  for (int d = 0; d < kMaxDevices; ++d) {
    s.contexts[d].device = d;
    s.next[d] = kAddressBase + (static_cast<CUdeviceptr>(d) << kDeviceAddressBits) + 4096;
  }
  s.initialized = true;
  return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  State& s = state();
  if (!s.initialized) return kNotInitialized;
  if (count == nullptr) return kInvalidValue;
  *count = s.device_count;
  return kSuccess;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  State& s = state();
  if (!s.initialized) return kNotInitialized;
  if (ordinal < 0 || ordinal >= s.device_count) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void** ctx, CUdevice device) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initialized) return kNotInitialized;
  if (device < 0 || device >= s.device_count) return kInvalidDevice;
  ++s.retains[device];
  *ctx = &s.contexts[device];
  return kSuccess;
}

CUresult cuCtxPushCurrent_v2(void* ctx) {
  Context* context = as_context(ctx);
  if (context == nullptr) return kInvalidContext;
  t_stack.push_back(context);
  return kSuccess;
}

CUresult cuCtxPopCurrent_v2(void** ctx) {
  if (t_stack.empty()) return kInvalidContext;
  if (ctx != nullptr) *ctx = t_stack.back();
  t_stack.pop_back();
  return kSuccess;
}

CUresult cuCtxSynchronize() { return current_device() < 0 ? kInvalidContext : kSuccess; }

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t size) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  if (size == 0 || ptr == nullptr) return kInvalidValue;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (size > s.capacity - s.used[device]) return kOutOfMemory;
  char* host = static_cast<char*>(std::malloc(size));
  if (host == nullptr) return kOutOfMemory;
  const CUdeviceptr base = s.next[device];
  s.next[device] += (size + 4095) / 4096 * 4096 + 4096;  // a gap after every block
  s.blocks[base] = Block{device, size, host};
  s.used[device] += size;
  *ptr = base;
  return kSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.blocks.find(ptr);
  if (it == s.blocks.end() || it->second.device != device) return kInvalidValue;
  std::free(it->second.host);
  s.used[device] -= it->second.size;
  s.blocks.erase(it);
  return kSuccess;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t size) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (const CUresult injected = take_injected_failure(s)) return injected;
  char* to = resolve(s, dst, size, device);
  if (to == nullptr || src == nullptr) return kInvalidValue;
  std::memcpy(to, src, size);
  return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t size) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (const CUresult injected = take_injected_failure(s)) return injected;
  const char* from = resolve(s, src, size, device);
  if (from == nullptr || dst == nullptr) return kInvalidValue;
  std::memcpy(dst, from, size);
  return kSuccess;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t size) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (const CUresult injected = take_injected_failure(s)) return injected;
  char* to = resolve(s, dst, size, device);
  const char* from = resolve(s, src, size, device);
  if (to == nullptr || from == nullptr) return kInvalidValue;
  std::memmove(to, from, size);
  return kSuccess;
}

CUresult cuMemcpyPeer(CUdeviceptr dst, void* dst_ctx, CUdeviceptr src, void* src_ctx, size_t size) {
  const Context* to_context = as_context(dst_ctx);
  const Context* from_context = as_context(src_ctx);
  if (to_context == nullptr || from_context == nullptr) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (const CUresult injected = take_injected_failure(s)) return injected;
  char* to = resolve(s, dst, size, to_context->device);
  const char* from = resolve(s, src, size, from_context->device);
  if (to == nullptr || from == nullptr) return kInvalidValue;
  std::memmove(to, from, size);
  return kSuccess;
}

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total_bytes) {
  const int device = current_device();
  if (device < 0) return kInvalidContext;
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  *free_bytes = s.capacity - s.used[device];
  *total_bytes = s.capacity;
  return kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case 0:
      *name = "CUDA_SUCCESS";
      return kSuccess;
    case 1:
      *name = "CUDA_ERROR_INVALID_VALUE";
      return kSuccess;
    case 2:
      *name = "CUDA_ERROR_OUT_OF_MEMORY";
      return kSuccess;
    case 3:
      *name = "CUDA_ERROR_NOT_INITIALIZED";
      return kSuccess;
    case 100:
      *name = "CUDA_ERROR_NO_DEVICE";
      return kSuccess;
    case 101:
      *name = "CUDA_ERROR_INVALID_DEVICE";
      return kSuccess;
    case 201:
      *name = "CUDA_ERROR_INVALID_CONTEXT";
      return kSuccess;
    case 700:
      *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
      return kSuccess;
    default:
      *name = nullptr;
      return kInvalidValue;
  }
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  switch (error) {
    case 0:
      *text = "no error";
      return kSuccess;
    case 1:
      *text = "invalid argument";
      return kSuccess;
    case 2:
      *text = "out of memory";
      return kSuccess;
    case 3:
      *text = "initialization error";
      return kSuccess;
    case 100:
      *text = "no CUDA-capable device is detected";
      return kSuccess;
    case 101:
      *text = "invalid device ordinal";
      return kSuccess;
    case 201:
      *text = "invalid device context";
      return kSuccess;
    case 700:
      *text = "an illegal memory access was encountered";
      return kSuccess;
    default:
      *text = nullptr;
      return kInvalidValue;
  }
}

// ---- Test hooks (not part of the driver API) -------------------------------------------------

size_t ndbuf_fake_cuda_used_bytes(int device) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return device >= 0 && device < kMaxDevices ? s.used[device] : 0;
}

int ndbuf_fake_cuda_live_blocks() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return static_cast<int>(s.blocks.size());
}

int ndbuf_fake_cuda_primary_retains(int device) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return device >= 0 && device < kMaxDevices ? s.retains[device] : 0;
}

// Contexts pushed on the calling thread and not popped.
int ndbuf_fake_cuda_context_depth() { return static_cast<int>(t_stack.size()); }

// The next copy of any kind fails with `code`.
void ndbuf_fake_cuda_fail_next_copy(int code) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.fail_next_copy = code;
}

}  // extern "C"
