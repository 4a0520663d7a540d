// Copies that write around the caches (non-temporal stores), for results too large to stay in
// them: a plain store first reads each line it writes from memory, a third more traffic for a
// result written once. kStreamedResultBytes is the size from which kernels use them: a result
// that large cannot stay in a last-level cache (32 MiB, shared, on the 2-core test machine)
// beside its inputs, so whatever reads it next reads it from memory either way. Softmax + layer
// norm with a 16 MiB result: 3.0 -> 2.85-3.0 ms on 2 cores.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ndbuf {

inline constexpr int64_t kStreamedResultBytes = int64_t{16} << 20;

// Copies `bytes` from `from` to `to` (not overlapping), the 16-byte-aligned part of `to` with
// non-temporal stores. Call stream_fence() before anything else reads `to`.
void stream_copy(void* to, const void* from, size_t bytes);

// Orders this thread's non-temporal stores before its later stores.
void stream_fence();

}  // namespace ndbuf
