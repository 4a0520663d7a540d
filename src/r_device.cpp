// Bindings for devices beyond resolving them: the default platform and device memory.
#include <cpp11.hpp>

#include "ndbuf/memory/device_api.hpp"

[[cpp11::register]] std::string ffi_default_platform() {
  return std::string(ndbuf::platform_name(ndbuf::default_platform()));
}

// Free and total bytes of the device's memory (host memory for CPU devices).
[[cpp11::register]] cpp11::doubles ffi_device_memory(std::string spec) {
  const ndbuf::Device device = ndbuf::resolve_device(spec);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  ndbuf::device_api(device.platform).memory_info(device.index, &free_bytes, &total_bytes);
  return cpp11::writable::doubles(
      {static_cast<double>(free_bytes), static_cast<double>(total_bytes)});
}
