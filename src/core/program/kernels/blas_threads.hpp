// The thread count of the BLAS R links, governed by the runtime's own (max_threads(), which
// pjrt_threads() sets): OpenBLAS's, MKL's and BLIS's setters, looked up at run time in the
// library that holds sgemm_, so the core links against no particular BLAS.
#pragma once

#include <cstdint>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {

// The BLAS whose thread setter was found: "openblas", "mkl", "blis", or "" (none: a reference
// BLAS, or one without threads).
const char* blas_thread_library();

// Sets the BLAS's thread count when it differs from the count last set here, and returns the
// count the BLAS now has from us: `threads`, or 0 without a setter (no-op: the BLAS keeps a
// count of its own). Must be called on the thread that calls the BLAS (OpenBLAS's OpenMP build
// keeps the count in that thread's OpenMP settings).
int set_blas_threads(int threads);

// The count the BLAS reports through its getter, or 0 without one.
int blas_threads();

// Sets the BLAS to the runtime's count, max_threads() (1 in a forked child: no setter call).
void sync_blas_threads();

// What a product sets before it runs: max_threads(), or 1 while parallel loops back off after
// contended regions (the BLAS's threads would wait for busy cores just the same). Returns what
// set_blas_threads() does (0 in a forked child, which sets nothing).
int sync_blas_threads_for_product();

// Runs `product`, a BLAS call on `threads` threads as set_blas_threads() returned them (0: a
// count we did not set). One on several threads of a BLAS whose count we set (its caller
// computes a share and spins for the rest, as OpenBLAS's does) is reported to note_region() as
// the runtime's own loops report theirs: a caller kept off its processor for much of the call
// means other processes share the cores, and the next products and loops back off.
template <class Product>
void run_blas_product(int threads, Product&& product) {
  if (threads <= 1) {
    product();
    return;
  }
  const int64_t start = now_ns();
  const ThreadTimes before = thread_times();
  product();
  note_region_since(start, before, now_ns(), thread_times());
}

}  // namespace ndbuf::program
