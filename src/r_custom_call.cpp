// Bindings of the custom-call registry: registering C handlers (inst/include/pjrt_custom_call.h)
// passed as external pointers, removing them, listing targets, and print_tensor's output sent
// to R's console.
#include <R_ext/Print.h>

#include <cpp11.hpp>
#include <string>
#include <thread>

#include "ndbuf/program/custom_call.hpp"
#include "r_object.h"

namespace {

std::thread::id g_main_thread;

// print_tensor's lines go to R's console from R's main thread (programs run there), so
// capture.output() and sink() see them; from any other thread to stdout.
void write_to_console(const std::string& line) {
  if (std::this_thread::get_id() == g_main_thread) {
    Rprintf("%s\n", line.c_str());
  } else {
    std::fputs((line + "\n").c_str(), stdout);
  }
}

}  // namespace

[[cpp11::register]] SEXP ffi_custom_call_register(std::string name, SEXP handler) {
  return pjrt::call_core([&]() -> SEXP {
    if (TYPEOF(handler) != EXTPTRSXP)
      pjrt::fail_argument("The handler must be an external pointer.");
    void* address = R_ExternalPtrAddr(handler);
    if (address == nullptr) {
      pjrt::fail_argument("The handler's external pointer is NULL (was it saved and restored?).");
    }
    ndbuf::program::register_custom_call(name, ndbuf::program::c_handler_target(address));
    return R_NilValue;
  });
}

[[cpp11::register]] SEXP ffi_custom_call_unregister(std::string name) {
  return pjrt::call_core(
      [&]() -> SEXP { return Rf_ScalarLogical(ndbuf::program::unregister_custom_call(name)); });
}

// Every target name, and whether each is built in.
[[cpp11::register]] SEXP ffi_custom_call_targets() {
  return pjrt::call_core([&]() -> SEXP {
    const std::vector<std::string> names = ndbuf::program::custom_call_targets();
    cpp11::writable::strings out(static_cast<R_xlen_t>(names.size()));
    cpp11::writable::logicals builtin(static_cast<R_xlen_t>(names.size()));
    for (size_t k = 0; k < names.size(); ++k) {
      out[static_cast<R_xlen_t>(k)] = names[k];
      builtin[static_cast<R_xlen_t>(k)] = ndbuf::program::is_builtin_custom_call(names[k]);
    }
    cpp11::writable::list result({out, builtin});
    result.names() = {"name", "builtin"};
    return result;
  });
}

[[cpp11::init]] void pjrt_install_custom_call_output(DllInfo* dll) {
  (void)dll;
  g_main_thread = std::this_thread::get_id();
  ndbuf::program::set_custom_call_output(&write_to_console);
}
