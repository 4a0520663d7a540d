// Devices: a platform and a 0-based index. CPU devices all share host memory; there are
// PJRT_CPU_DEVICE_COUNT of them (default 1) so that multi-device code can be tested anywhere.
// CUDA devices are the GPUs the CUDA driver reports (see device_api.hpp); where there is no
// driver or GPU, every CUDA query is a kDevice error saying so.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ndbuf {

enum class Platform { kCpu, kCuda };

struct Device {
  Platform platform = Platform::kCpu;
  int index = 0;
  bool operator==(const Device& other) const {
    return platform == other.platform && index == other.index;
  }
  bool operator!=(const Device& other) const { return !(*this == other); }
};

// True for devices whose memory the host reads directly (CPU): the one test of where a
// tensor's bytes may be read. Elsewhere values are read through to_host() (transfer.hpp).
inline bool is_host(const Device& device) { return device.platform == Platform::kCpu; }

std::string_view platform_name(Platform platform);  // "cpu", "cuda"
std::string platform_label(Platform platform);      // "CPU", "CUDA" (printer footers)
std::string device_label(const Device& device);     // "CpuDevice(id=0)"
std::string device_spec(const Device& device);      // "cpu:0", accepted by resolve_device()

// Number of devices of a platform on this machine; throws kDevice where it is missing.
int device_count(Platform platform);
std::vector<Device> list_devices(Platform platform);

// "cpu" or "cuda"; anything else is kInvalidArgument listing the valid names.
Platform parse_platform(std::string_view name);

// The platform named by PJRT_PLATFORM, else CPU.
Platform default_platform();

// Parses "cpu", "cuda", "cpu:1" (or "" for the default device) and checks that it exists.
Device resolve_device(std::string_view spec);

// Throws kDevice ("Device index 3 out of range for platform cpu (3 devices)") unless
// 0 <= index < count, the number of devices of `platform`.
void check_device_index(Platform platform, int index, int count);

// The device of allocations that name none (Tensor::allocate() without a device) on the
// calling thread: cpu:0, or the device of the innermost DeviceScope alive on this thread.
// Compiling and running a program set the executable's device, so its constants and every
// tensor its kernels make are on that device without a copy. Other threads (parallel loops'
// workers) are not affected.
Device current_device() noexcept;

class DeviceScope {
 public:
  explicit DeviceScope(Device device) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device previous_;
};

}  // namespace ndbuf
