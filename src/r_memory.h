// Memory that R's collector cannot see (buffer storage, recycled result vectors), and the one
// way R can be told about it: its live bytes are counted, and a collection runs before an
// allocation that would take them past a budget.
#pragma once

#include <atomic>
#include <cstddef>

namespace pjrt {

// One kind of memory outside R's heap. make_room() runs on R's main thread only (where a
// collection may run); add() and remove() on any thread.
class ExternalMemory {
 public:
  // `min_growth`: how many bytes may be allocated after a collection before the next one, at
  // least (the budget is what survived the collection plus as much again, and at least this).
  explicit ExternalMemory(size_t min_growth) : min_growth_(min_growth), budget_(min_growth) {}

  // Collects when `nbytes` more would pass the budget; call before allocating them.
  void make_room(size_t nbytes);
  void add(size_t nbytes) noexcept { live_.fetch_add(nbytes); }
  void remove(size_t nbytes) noexcept { live_.fetch_sub(nbytes); }
  size_t live_bytes() const noexcept { return live_.load(); }

 private:
  size_t min_growth_;
  size_t budget_;
  size_t survived_ = 0;  // live after the last full collection
  std::atomic<size_t> live_{0};
};

// Whether the calling thread is R's main thread, the only one that may call R (the processes
// of a many-device run and the kernels' worker threads also allocate host memory).
bool on_r_thread();
// Records the calling thread as R's main thread (at load).
void mark_r_thread();

// Buffer storage in host memory (r_tensor.cpp) and large result vectors (r_object.cpp).
ExternalMemory& buffer_memory();
ExternalMemory& result_memory();

// A full collection (base::gc()), running the finalizers it makes pending (they free buffers'
// memory); returns the bytes R's heap holds after it.
size_t collect_garbage();
// A collection of the young generation (gc(full = FALSE)), finalizers included.
void collect_young_garbage();
// Before allocating `nbytes` of host memory: a young collection where no kept block would
// serve the allocation (it would map fresh pages) and 64 MiB of large blocks were handed out
// since the last collection.
void collect_before_fresh_pages(size_t nbytes);
// The same rule for a large result of an asynchronous run, counted when the run is queued (its
// block is acquired later, on the queue's thread).
void collect_before_queued_results(size_t nbytes);

}  // namespace pjrt
