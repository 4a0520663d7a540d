// Collections for memory R's collector cannot see (see r_memory.h).
#include "r_memory.h"

#include <algorithm>
#include <cpp11.hpp>

namespace pjrt {
namespace {

// Bytes R's own heap holds: cons cells and vector cells in use, from the matrix base::gc()
// returns (the only way the API offers to read them).
constexpr double kConsCellBytes = 56;
constexpr double kVectorCellBytes = 8;

size_t heap_bytes_in_use(SEXP gc_result) {
  const double* used = REAL(gc_result);  // column "used": rows Ncells, Vcells
  return static_cast<size_t>(used[0] * kConsCellBytes + used[1] * kVectorCellBytes);
}

// `gc(verbose = FALSE)`, made once and kept.
SEXP gc_call() {
  static SEXP call = R_NilValue;
  if (call == R_NilValue) {
    const cpp11::sexp verbose = cpp11::safe[Rf_ScalarLogical](FALSE);
    const cpp11::sexp made = cpp11::safe[Rf_lang2](cpp11::safe[Rf_install]("gc"), verbose);
    SET_TAG(CDR(made), cpp11::safe[Rf_install]("verbose"));
    R_PreserveObject(made);
    call = made;
  }
  return call;
}

}  // namespace

size_t collect_garbage() { return heap_bytes_in_use(cpp11::safe[Rf_eval](gc_call(), R_BaseEnv)); }

// The budget follows R's own rule for its heap: memory may grow by about what is live before
// the next collection. What is live counts R's heap too, so a session holding large R objects
// collects as rarely as R itself would (a full collection costs tens of milliseconds), while
// a loop that replaces large buffers collects every few iterations.
void ExternalMemory::make_room(size_t nbytes) {
  if (live_.load() + nbytes <= budget_) return;
  const size_t heap = collect_garbage();
  const size_t survived = live_.load();
  budget_ = survived + std::max(survived + heap, min_growth_);
}

// Buffers: the storage of a dead buffer is freed by the collection that finds it dead (its
// finalizer runs at the end of that collection). The floor matters in small sessions only.
ExternalMemory& buffer_memory() {
  static ExternalMemory memory(size_t{256} << 20);
  return memory;
}

// Large results: at least 1 GiB between collections, since a collection costs more than
// re-faulting the pages of a kept block (measured: about 0.07 s with a benchmark's objects).
ExternalMemory& result_memory() {
  static ExternalMemory memory(size_t{1} << 30);
  return memory;
}

}  // namespace pjrt

// Bytes of host memory held by live buffers (tests check that collections release them).
[[cpp11::register]] SEXP ffi_buffer_memory_bytes() {
  return cpp11::safe[Rf_ScalarReal](static_cast<double>(pjrt::buffer_memory().live_bytes()));
}
