// Collections for memory R's collector cannot see (see r_memory.h).
#include "r_memory.h"

#include <algorithm>
#include <cpp11.hpp>

namespace pjrt {

void ExternalMemory::make_room(size_t nbytes) {
  if (live_.load() + nbytes <= budget_) return;
  collect_garbage();
  const size_t survived = live_.load();
  budget_ = survived + std::max(survived, min_growth_);
}

// Buffers: the storage of a dead buffer is freed by the collection that finds it dead (its
// finalizer runs at the end of that collection). 256 MiB between collections keeps a loop of
// large creations near what the same loop of R vectors holds, and is far more than the
// storage of small buffers, whose objects make R collect often enough on its own.
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

void collect_garbage() { cpp11::safe[R_gc](); }

}  // namespace pjrt

// Bytes of host memory held by live buffers (tests check that collections release them).
[[cpp11::register]] SEXP ffi_buffer_memory_bytes() {
  return cpp11::safe[Rf_ScalarReal](static_cast<double>(pjrt::buffer_memory().live_bytes()));
}
