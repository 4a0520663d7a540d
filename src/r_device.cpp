// Bindings for devices: listing and resolving them, the default platform and device memory.
#include <cpp11.hpp>
#include <string>
#include <vector>

#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "r_object.h"

[[cpp11::register]] SEXP ffi_devices(std::string platform) {
  return pjrt::call_core([&]() -> cpp11::strings {
    const std::vector<ndbuf::Device> devices = ndbuf::list_devices(
        platform.empty() ? ndbuf::default_platform() : ndbuf::parse_platform(platform));
    cpp11::writable::strings out(static_cast<R_xlen_t>(devices.size()));
    for (size_t k = 0; k < devices.size(); ++k) out[k] = ndbuf::device_spec(devices[k]);
    return out;
  });
}

[[cpp11::register]] SEXP ffi_device_resolve(std::string spec) {
  return pjrt::call_core([&] { return ndbuf::device_spec(ndbuf::resolve_device(spec)); });
}

[[cpp11::register]] SEXP ffi_default_platform() {
  return pjrt::call_core(
      [&] { return std::string(ndbuf::platform_name(ndbuf::default_platform())); });
}

// Free and total bytes of the device's memory (host memory for CPU devices).
[[cpp11::register]] SEXP ffi_device_memory(std::string spec) {
  return pjrt::call_core([&]() -> cpp11::doubles {
    const ndbuf::Device device = ndbuf::resolve_device(spec);
    size_t free_bytes = 0;
    size_t total_bytes = 0;
    ndbuf::device_api(device.platform).memory_info(device.index, &free_bytes, &total_bytes);
    return cpp11::writable::doubles(
        {static_cast<double>(free_bytes), static_cast<double>(total_bytes)});
  });
}

namespace {

// A field of a device object (an environment), or R_NilValue.
SEXP device_field(SEXP device, const char* name) {
  const SEXP value = Rf_findVarInFrame3(device, Rf_install(name), TRUE);
  return value == R_UnboundValue ? R_NilValue : value;
}

bool is_device_object(SEXP x) { return TYPEOF(x) == ENVSXP && Rf_inherits(x, "PJRTDevice"); }

}  // namespace

// `==` on devices in one call (identical() is a closure with defaults, most of a call's time):
// the same R object (an interned device), or two device objects with the same platform and id
// (a device read back from a file). Anything else is not equal.
[[cpp11::register]] SEXP ffi_devices_equal(SEXP a, SEXP b) {
  if (a == b) return Rf_ScalarLogical(TRUE);
  if (!is_device_object(a) || !is_device_object(b)) return Rf_ScalarLogical(FALSE);
  const SEXP platform_a = device_field(a, "platform"), platform_b = device_field(b, "platform");
  const SEXP id_a = device_field(a, "id"), id_b = device_field(b, "id");
  const bool same = R_compute_identical(platform_a, platform_b, IDENT_USE_CLOENV) != FALSE &&
                    R_compute_identical(id_a, id_b, IDENT_USE_CLOENV) != FALSE;
  return Rf_ScalarLogical(same ? TRUE : FALSE);
}
