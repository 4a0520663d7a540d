// Bindings for the thread count of large conversions: R's option pjrt.threads as the core's
// setting source, and the count in effect.
#include <atomic>
#include <cmath>
#include <cpp11.hpp>

#include "ndbuf/memory/device_queue.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/blas_threads.hpp"
#include "r_object.h"

namespace {

// The option as a count: 0 when unset or not a single whole number >= 1 (pjrt_threads()
// reports malformed values; the loops that read it cannot raise R errors).
int r_thread_option() {
  SEXP value = Rf_GetOption1(Rf_install("pjrt.threads"));
  if (Rf_xlength(value) != 1) return 0;
  double count = NA_REAL;
  if (TYPEOF(value) == INTSXP && INTEGER(value)[0] != NA_INTEGER) count = INTEGER(value)[0];
  if (TYPEOF(value) == REALSXP) count = REAL(value)[0];
  if (std::isnan(count) || count < 1 || count != std::floor(count)) return 0;
  return count > 1 << 20 ? 1 << 20 : static_cast<int>(count);
}

}  // namespace

[[cpp11::register]] SEXP ffi_threads() {
  return pjrt::call_core([] { return ndbuf::max_threads(); });
}

// The count the BLAS reports (0 without a getter), named by the BLAS found ("" if none); with
// `sync`, after setting it from the runtime's count (as every product does before it runs).
[[cpp11::register]] SEXP ffi_blas_threads(bool sync) {
  return pjrt::call_core([sync] {
    if (sync) ndbuf::program::sync_blas_threads();
    cpp11::writable::integers count = {ndbuf::program::blas_threads()};
    count.attr("library") = ndbuf::program::blas_thread_library();
    return count;
  });
}

// For tests of release_thread_team(): starts a two-thread OpenMP team on R's thread, or (with
// `on_worker`) on the worker of cpu:0's queue, and returns how many threads ran its region.
[[cpp11::register]] SEXP ffi_start_thread_team(bool on_worker) {
  return pjrt::call_core([on_worker] {
    if (!on_worker) return ndbuf::start_thread_team(2);
    std::atomic<int> members{0};
    ndbuf::enqueue_on(ndbuf::Device{}, [&members] { members.store(ndbuf::start_thread_team(2)); });
    ndbuf::drain_queues();
    return members.load();
  });
}

[[cpp11::init]] void pjrt_install_thread_setting(DllInfo* dll) {
  (void)dll;
  ndbuf::set_thread_setting_source(&r_thread_option);
}
