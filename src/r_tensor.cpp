// PJRTBuffer external pointers, and host memory that R's garbage collector can see.
#include "r_tensor.h"

#include <R_ext/Utils.h>

#include <memory>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/storage.hpp"

namespace pjrt {
namespace {

// Host memory is an R raw vector (over-allocated to align the data to kHostAlignment), so R
// counts it towards its heap and collects sooner under memory pressure. Called only on the
// main thread; the deleter releases the vector from cpp11's preserve list.
std::shared_ptr<ndbuf::Storage> r_host_allocator(size_t nbytes, ndbuf::Device device) {
  const size_t total = nbytes + ndbuf::kHostAlignment;
  SEXP raw = cpp11::safe[Rf_allocVector](RAWSXP, static_cast<R_xlen_t>(total));
  auto keep = std::make_unique<cpp11::sexp>(raw);
  const auto base = reinterpret_cast<uintptr_t>(RAW(raw));
  const uintptr_t aligned = (base + ndbuf::kHostAlignment - 1) & ~(ndbuf::kHostAlignment - 1);
  cpp11::sexp* held = keep.get();
  auto storage = std::make_shared<ndbuf::Storage>(
      reinterpret_cast<void*>(aligned), nbytes, device, [held](void*) { delete held; }, false);
  keep.release();
  return storage;
}

// Called by the core once when a device (GPU) allocation runs out of memory, before its one
// retry: a full collection runs the finalizers of unreachable buffers, which frees their device
// memory. Device allocations happen in bindings, on the main thread.
void r_reclaim_memory() { cpp11::safe[R_gc](); }

const char* kBufferClass = "PJRTBuffer";
// Stored in a released buffer's protected field: it was donated to a program.
const char* kDonatedMark = "donated";

void check_user_interrupt(void*) { R_CheckUserInterrupt(); }

// True when the user pressed Ctrl-C: R_ToplevelExec contains the longjmp R_CheckUserInterrupt
// makes, so C++ frames are never jumped over; the core then throws and unwinds normally.
bool g_core_interrupt = false;

bool r_interrupt_pending() {
  if (R_ToplevelExec(check_user_interrupt, nullptr) != FALSE) return false;
  g_core_interrupt = true;
  return true;
}

}  // namespace

SEXP wrap_buffer(ndbuf::Tensor tensor) {
  cpp11::external_pointer<ndbuf::Tensor> ptr(new ndbuf::Tensor(std::move(tensor)));
  SEXP out = static_cast<SEXP>(ptr);  // protected by `ptr`
  // The tag says what the address points to: the class attribute alone can be changed in R.
  // Through cpp11::safe: an allocation error must not jump over `ptr`'s destructor.
  R_SetExternalPtrTag(out, cpp11::safe[Rf_install](kBufferClass));
  cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString](kBufferClass));
  return out;
}

const ndbuf::Tensor& unwrap_buffer(SEXP x) {
  if (TYPEOF(x) != EXTPTRSXP || !Rf_inherits(x, kBufferClass)) {
    cpp11::stop("Expected a PJRTBuffer.");
  }
  auto* tensor = static_cast<ndbuf::Tensor*>(R_ExternalPtrAddr(x));
  if (tensor == nullptr) {
    if (R_ExternalPtrProtected(x) == Rf_install(kDonatedMark)) {
      cpp11::stop(
          "This PJRTBuffer was donated to a program's result and can no longer be used "
          "(called on deleted or donated buffer).");
    }
    cpp11::stop("This PJRTBuffer is no longer valid (it was saved and restored, or released).");
  }
  // An external pointer of another kind (an HArray) given the class in R.
  if (R_ExternalPtrTag(x) != Rf_install(kBufferClass)) cpp11::stop("Expected a PJRTBuffer.");
  ndbuf::check_mapping_intact(tensor->storage()->data());
  return *tensor;
}

const ndbuf::Tensor* find_buffer(SEXP x) {
  if (TYPEOF(x) != EXTPTRSXP || !Rf_inherits(x, kBufferClass)) return nullptr;
  if (R_ExternalPtrTag(x) != Rf_install(kBufferClass)) return nullptr;
  return static_cast<const ndbuf::Tensor*>(R_ExternalPtrAddr(x));
}

bool take_core_interrupt() {
  const bool seen = g_core_interrupt;
  g_core_interrupt = false;
  return seen;
}

void release_donated_buffer(SEXP x) {
  if (TYPEOF(x) != EXTPTRSXP || R_ExternalPtrTag(x) != Rf_install(kBufferClass)) return;
  auto* tensor = static_cast<ndbuf::Tensor*>(R_ExternalPtrAddr(x));
  if (tensor == nullptr) return;
  R_ClearExternalPtr(x);
  R_SetExternalPtrProtected(x, Rf_install(kDonatedMark));
  delete tensor;
}

}  // namespace pjrt

// Whether the last core error was a user interrupt (and forget it).
[[cpp11::register]] bool ffi_take_core_interrupt() { return pjrt::take_core_interrupt(); }

[[cpp11::init]] void pjrt_install_host_allocator(DllInfo* dll) {
  (void)dll;
  ndbuf::set_host_allocator(&pjrt::r_host_allocator);
  ndbuf::set_interrupt_poll(&pjrt::r_interrupt_pending);
  ndbuf::set_memory_reclaimer(&pjrt::r_reclaim_memory);
}
