// Copies that write around the caches (non-temporal stores), for results larger than the caches:
// a plain store first reads each line it writes from memory, a third more traffic for a result
// written once. Row-fused steps and row gathers use them for results of 8 MiB or more: softmax +
// layer norm with a 16 MiB result 3.0 -> 2.85-3.0 ms on 2 cores, an embedding lookup with an
// 8 MiB result about 0.59 -> 0.45 ms (medians, noisy).
#pragma once

#include <cstddef>

namespace ndbuf {

// Copies `bytes` from `from` to `to` (not overlapping), the 16-byte-aligned part of `to` with
// non-temporal stores. Call stream_fence() before anything else reads `to`.
void stream_copy(void* to, const void* from, size_t bytes);

// Orders this thread's non-temporal stores before its later stores.
void stream_fence();

}  // namespace ndbuf
