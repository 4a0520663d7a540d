// Collections for memory R's collector cannot see (see r_memory.h).
#include "r_memory.h"

#include <algorithm>
#include <cpp11.hpp>
#include <thread>

#include "ndbuf/memory/block_recycler.hpp"

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

// `gc(verbose = FALSE, full = <full>)`, made once and kept.
SEXP gc_call(bool full) {
  static SEXP calls[2] = {R_NilValue, R_NilValue};
  SEXP& call = calls[full ? 1 : 0];
  if (call == R_NilValue) {
    const cpp11::sexp verbose = cpp11::safe[Rf_ScalarLogical](FALSE);
    const cpp11::sexp whole = cpp11::safe[Rf_ScalarLogical](full ? TRUE : FALSE);
    const cpp11::sexp made = cpp11::safe[Rf_lang3](cpp11::safe[Rf_install]("gc"), verbose, whole);
    SET_TAG(CDR(made), cpp11::safe[Rf_install]("verbose"));
    SET_TAG(CDDR(made), cpp11::safe[Rf_install]("full"));
    R_PreserveObject(made);
    call = made;
  }
  return call;
}

// large_bytes_acquired() when the last collection began (main thread only).
size_t g_acquired_at_collection = 0;
// Large results of asynchronous runs queued since the last collection: their blocks are
// acquired later, on the queue's thread, so large_bytes_acquired() does not see them yet.
size_t g_queued_since_collection = 0;

// Large blocks handed out between young collections before one of them maps fresh pages.
constexpr size_t kBlockBytesPerCollection = size_t{64} << 20;

}  // namespace

namespace {
std::thread::id g_r_thread;
}  // namespace

bool on_r_thread() { return std::this_thread::get_id() == g_r_thread; }
void mark_r_thread() { g_r_thread = std::this_thread::get_id(); }

size_t collect_garbage() {
  g_acquired_at_collection = ndbuf::large_bytes_acquired();
  g_queued_since_collection = 0;
  return heap_bytes_in_use(cpp11::safe[Rf_eval](gc_call(true), R_BaseEnv));
}

void collect_young_garbage() {
  g_acquired_at_collection = ndbuf::large_bytes_acquired();
  g_queued_since_collection = 0;
  cpp11::safe[Rf_eval](gc_call(false), R_BaseEnv);
}

// A dead buffer's block goes back to the recycler only when a collection finds the buffer
// dead, and until then every new block is a fresh mapping whose pages fault on first touch:
// 0.2-0.3 ms a MiB on bare metal, about 4 ms on a virtual machine whose host takes freed pages
// back (softmax of 4096 x 1024 f32 took 64-72 ms there against 7-9.5 ms in a kept block). A
// young collection costs 0.5-1.1 ms (measured in a session holding a 100 MB R matrix), less
// than faulting 64 MiB anywhere; so once 64 MiB of large blocks were handed out since the
// last collection, an allocation no kept block serves collects the young generation first:
// results dropped since then are young, and their blocks serve this allocation and the next
// ones. Counting blocks handed out, not only fresh ones, keeps a loop that drops its results
// on kept blocks for good. 64 MiB against 32: an embedding lookup with 8 MiB results, 1.14 ->
// 0.87 ms a call in a loop (fewer collections); 128 MiB gained nothing more. Where every
// result stays live this costs one young collection per 64 MiB of new results.
// No kept block is consulted: one kept now may be taken by a run queued before this one.
void collect_before_queued_results(size_t nbytes) {
  if (nbytes < ndbuf::kRecycleMinBytes) return;
  g_queued_since_collection += nbytes;
  if (g_queued_since_collection < kBlockBytesPerCollection) return;
  collect_young_garbage();
}

void collect_before_fresh_pages(size_t nbytes) {
  if (nbytes < ndbuf::kRecycleMinBytes) return;
  if (ndbuf::large_bytes_acquired() - g_acquired_at_collection < kBlockBytesPerCollection) return;
  if (ndbuf::large_block_kept(nbytes)) return;
  collect_young_garbage();
}

// The budget follows R's own rule for its heap: memory may grow by about what is live before
// the next collection. What is live counts R's heap too, so a session holding large R objects
// collects as rarely as R itself would (a full collection costs tens of milliseconds), while
// a loop that replaces large buffers collects every few iterations. A collection of the young
// generation comes first (under a millisecond against 38 ms with a benchmark's packages
// loaded): buffers and results dropped since the last collection are young and go with it. A
// loop replacing a buffer it holds (x <- f(x)) leaves dead ones that survived a collection
// while they were live, which only a full one frees: the full one follows when the young
// collection freed less than half of the growth the budget allowed (so young collections
// never run on every allocation near the budget).
void ExternalMemory::make_room(size_t nbytes) {
  const size_t before = live_.load();
  if (before + nbytes <= budget_) return;
  collect_young_garbage();
  const size_t after = live_.load();
  if (after + nbytes <= budget_ && before - std::min(before, after) >= (budget_ - survived_) / 2) {
    return;
  }
  const size_t heap = collect_garbage();
  survived_ = live_.load();
  budget_ = survived_ + std::max(survived_ + heap, min_growth_);
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
