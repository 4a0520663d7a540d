// Block-parallel loops for the element kernels. Large arrays are split into blocks run on
// the available cores (OpenMP where the build enables it); arrays under kParallelBytes stay
// on the calling thread, so small calls never pay for threads. Between rounds of blocks the
// calling thread polls for a user interrupt.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ndbuf {

inline constexpr int64_t kParallelBytes = int64_t{64} * 1024;
inline constexpr int64_t kBlockElements = int64_t{1} << 14;
inline constexpr int64_t kInterruptElements = int64_t{1} << 23;

// Returns true when the embedding runtime has a pending user interrupt. Called only on the
// thread that started the loop.
using InterruptPoll = bool (*)();
void set_interrupt_poll(InterruptPoll poll);
// Throws ndbuf::Error(kInterrupted) when the installed poll reports an interrupt.
void check_interrupt();

// Number of threads a large loop uses: 1 in builds without OpenMP and in a process forked
// from one that had started threads (the OpenMP runtime's pool is not usable after fork(), so
// its first parallel region there would wait forever for threads that no longer exist).
int max_threads();
// True in a child made by fork() (parallel::mclapply and friends) of a process that had
// loaded ndbuf; ndbuf's loops run serially there.
bool in_forked_child();

// Calls body(begin, end) on disjoint blocks covering [0, count). `body` must not throw.
// `bytes_per_item` (input plus output) decides whether threads are worth starting;
// `elements_per_item` > 1 when an item is a whole row, so blocks hold a similar amount of work.
template <class Body>
void for_each_block(int64_t count, int64_t bytes_per_item, Body&& body,
                    int64_t elements_per_item = 1) {
  const int64_t per_item = std::max<int64_t>(1, elements_per_item);
  const int64_t block = std::max<int64_t>(1, kBlockElements / per_item);
  const int64_t round_size = std::max<int64_t>(1, kInterruptElements / per_item);
  // Unused where OpenMP is off (clang fuzz builds), where the pragma below is ignored.
  [[maybe_unused]] const bool parallel =
      count * bytes_per_item >= kParallelBytes && max_threads() > 1;
  for (int64_t round = 0; round < count; round += round_size) {
    const int64_t round_end = std::min(count, round + round_size);
    const int64_t blocks = (round_end - round + block - 1) / block;
    const auto run_block = [&](int64_t b) {
      const int64_t begin = round + b * block;
      body(begin, std::min(round_end, begin + block));
    };
    // Serial loops never enter the OpenMP runtime (even a one-thread region touches its pool,
    // which a forked child must not).
    if (parallel) {
#pragma omp parallel for schedule(static)
      for (int64_t b = 0; b < blocks; ++b) run_block(b);
    } else {
      for (int64_t b = 0; b < blocks; ++b) run_block(b);
    }
    if (round_end < count) check_interrupt();
  }
}

}  // namespace ndbuf

namespace ndbuf {
// memcpy that spreads large copies over the available cores (page faults on fresh memory
// dominate big copies, and they are taken in parallel too).
void copy_bytes(void* dst, const void* src, size_t nbytes);
}  // namespace ndbuf
