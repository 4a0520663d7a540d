// Large host blocks kept after release for the next allocation of a similar size.
#pragma once

#include <cstddef>

namespace ndbuf {

// Fresh memory costs a page fault per 4 KiB page, more than the conversion that fills it. A
// kept block's pages are already mapped, so refilling it runs at memory speed. Smaller blocks
// come from malloc, which reuses its memory by itself. (glibc maps blocks of a few MiB afresh
// each time: a cumsum of 1e6 f32, 3.8 MiB, spent more time faulting its result's pages in
// than scanning.) Recycling from 128 KiB was measured and undone: a triangular solve with a
// 400 KB result stopped faulting (2 threads, 0.81-1.88 -> 0.80-0.82 ms), but the bindings'
// young collection per 64 MiB of blocks, about 2 ms in a small session, then came every 160
// results, and a loop of 400 KB negates went from 33-37 to 54-56 us a call.
inline constexpr size_t kRecycleMinBytes = size_t{1} << 20;
// At most this many blocks are kept. Results die in batches (the bindings collect R's garbage
// once 64 MiB of blocks were handed out since the last collection), and a batch of blocks of
// 1 MiB and more should all be there for the results that follow.
inline constexpr size_t kRecycleMaxBlocks = 256;
// A kept block is unmapped at the first call after it has been unused this long (as
// allocators with decaying dirty pages do; nothing runs in the background).
inline constexpr double kRecycleDecaySeconds = 10.0;

struct LargeBlock {
  void* data;
  size_t capacity;
};

// A block of at least `nbytes` (meant for kRecycleMinBytes and more): a kept one whose
// capacity is at most a quarter of `nbytes` above a fresh mapping's when there is one, else a
// fresh mapping (advised for huge pages when they are enabled). Its contents are undefined.
// {nullptr, 0} when the system has no memory for it.
LargeBlock acquire_large_block(size_t nbytes) noexcept;

// True when a kept block would serve acquire_large_block(nbytes) (in this process).
bool large_block_kept(size_t nbytes) noexcept;

// Bytes asked of acquire_large_block() since the process started, kept blocks or fresh
// mappings alike (a caller that frees dead blocks by collecting garbage counts from here).
size_t large_bytes_acquired() noexcept;

// Keeps the block for reuse while the kept total stays within recycle_limit_bytes(), making
// room by unmapping the oldest kept blocks; unmaps it otherwise.
void release_large_block(LargeBlock block) noexcept;

// The most bytes kept at once: the environment variable PJRT_RECYCLE_MB in MiB (read at each
// release; 0 keeps nothing), 1024 when unset or not a number.
size_t recycle_limit_bytes() noexcept;

// Bytes kept now, and unmapping them all (for tests, and for a process about to go idle).
size_t recycled_bytes() noexcept;
void drop_recycled_blocks() noexcept;

// Unmaps the blocks kept longer than `max_age_seconds`; every acquire and release does this
// with kRecycleDecaySeconds.
void expire_recycled_blocks(double max_age_seconds) noexcept;

}  // namespace ndbuf
