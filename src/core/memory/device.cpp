// Devices: platforms, indices, PJRT_PLATFORM and the "cpu:0" spellings.
#include "ndbuf/memory/device.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "ndbuf/base/environment.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"

namespace ndbuf {
namespace {

constexpr int kMaxCpuDevices = 1024;

thread_local Device t_current_device{};

int parse_index(std::string_view text, std::string_view spec) {
  const std::string digits(text);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || errno != 0 || value < 0 || value > kMaxCpuDevices * 1024) {
    fail(ErrorKind::kInvalidArgument,
         "Device \"" + std::string(spec) +
             "\" is not of the form \"<platform>:<index>\" with a non-negative index.");
  }
  return static_cast<int>(value);
}

int cpu_device_count() {
  const WholeNumberSetting count = whole_number_setting("PJRT_CPU_DEVICE_COUNT");
  if (count.state == WholeNumberSetting::State::kUnset) return 1;
  if (!count.valid() || count.value < 1 || count.value > kMaxCpuDevices) {
    fail(ErrorKind::kInvalidArgument, "PJRT_CPU_DEVICE_COUNT must be a whole number from 1 to " +
                                          std::to_string(kMaxCpuDevices) + ", not \"" +
                                          std::getenv("PJRT_CPU_DEVICE_COUNT") + "\".");
  }
  return static_cast<int>(count.value);
}

}  // namespace

Platform parse_platform(std::string_view name) {
  if (name == "cpu") return Platform::kCpu;
  if (name == "cuda") return Platform::kCuda;
  fail(ErrorKind::kInvalidArgument,
       "Unknown platform \"" + std::string(name) + "\"; valid platforms are cpu, cuda.");
}

std::string_view platform_name(Platform platform) {
  return platform == Platform::kCpu ? "cpu" : "cuda";
}

std::string platform_label(Platform platform) {
  return platform == Platform::kCpu ? "CPU" : "CUDA";
}

std::string device_label(const Device& device) {
  const char* kind = device.platform == Platform::kCpu ? "CpuDevice" : "CudaDevice";
  return std::string(kind) + "(id=" + std::to_string(device.index) + ")";
}

std::string device_spec(const Device& device) {
  return std::string(platform_name(device.platform)) + ":" + std::to_string(device.index);
}

int device_count(Platform platform) {
  if (platform == Platform::kCpu) return cpu_device_count();
  return device_api(platform).count();
}

std::vector<Device> list_devices(Platform platform) {
  const int count = device_count(platform);
  std::vector<Device> devices;
  for (int index = 0; index < count; ++index) devices.push_back(Device{platform, index});
  return devices;
}

Platform default_platform() {
  const char* env = std::getenv("PJRT_PLATFORM");
  if (env == nullptr || *env == '\0') return Platform::kCpu;
  const std::string name(env);
  if (name != "cpu" && name != "cuda") {
    fail(ErrorKind::kInvalidArgument,
         "The environment variable PJRT_PLATFORM names an unknown platform \"" + name +
             "\"; valid platforms are cpu, cuda.");
  }
  return parse_platform(name);
}

Device resolve_device(std::string_view spec) {
  // Only the default device depends on PJRT_PLATFORM; an explicit one never does.
  Device device{spec.empty() ? default_platform() : Platform::kCpu, 0};
  if (!spec.empty()) {
    const size_t colon = spec.find(':');
    device.platform = parse_platform(spec.substr(0, colon));
    if (colon != std::string_view::npos) device.index = parse_index(spec.substr(colon + 1), spec);
  }
  check_device_index(device.platform, device.index, device_count(device.platform));
  return device;
}

void check_device_index(Platform platform, int index, int count) {
  if (index < 0 || index >= count) {
    fail(ErrorKind::kDevice, "Device index " + std::to_string(index) +
                                 " out of range for platform " +
                                 std::string(platform_name(platform)) + " (" +
                                 std::to_string(count) + (count == 1 ? " device)" : " devices)"));
  }
}

Device current_device() noexcept { return t_current_device; }

DeviceScope::DeviceScope(Device device) noexcept : previous_(t_current_device) {
  t_current_device = device;
}

DeviceScope::~DeviceScope() { t_current_device = previous_; }

}  // namespace ndbuf
