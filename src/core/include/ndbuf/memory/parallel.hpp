// Block-parallel loops for the element kernels. Large arrays are split into blocks run on
// the available cores (OpenMP where the build enables it) inside one parallel region per
// call; arrays under kParallelBytes stay on the calling thread, so small calls never pay for
// threads. Between rounds of blocks the calling thread polls for a user interrupt. A region
// whose threads arrived late (another process busy on the same cores) sends the loops that
// follow back to the calling thread for a while (parallel_contended()).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf {

// Work below this many bytes (input plus output) runs on the calling thread. Measured on a
// 2-core machine (double -> f32): a team that is already running saves 20-40% from about
// 0.4 MB on, but a team woken from sleep costs tens of microseconds before it helps, and on
// a busy machine milliseconds, so threads start from 2 MiB, where the saving is clear.
inline constexpr int64_t kParallelBytes = int64_t{2} << 20;
inline constexpr int64_t kBlockElements = int64_t{1} << 14;
inline constexpr int64_t kInterruptElements = int64_t{1} << 23;

// Returns true when the embedding runtime has a pending user interrupt. Called only on the
// thread that started the loop.
using InterruptPoll = bool (*)();
void set_interrupt_poll(InterruptPoll poll);
// Throws ndbuf::Error(kInterrupted) when the installed poll reports an interrupt.
void check_interrupt();
// check_interrupt() once at least kInterruptPollNs has passed since this thread last polled
// here: one clock read otherwise, so a loop calls it per iteration whatever an iteration costs
// (a count of iterations between polls would wait seconds where each is slow).
inline constexpr int64_t kInterruptPollNs = 20'000'000;
void check_interrupt_periodically();
// The installed poll's answer, without throwing (false when none is installed). On a thread
// inside a CancelScope it is that scope's flag instead: the poll (R's) may only run on the
// thread that installed it.
bool interrupt_pending();
// Blocks the asynchronous signals (SIGINT, SIGCHLD, ...) on the calling thread, so that the
// process's signals reach the embedding runtime's main thread (R's handlers assume they run
// there: a Ctrl-C taken by a worker thread arrived late or twice). Called first by the threads
// ndbuf starts itself (device queues, the processes of a many-device run). No-op on Windows.
void block_async_signals();

// While it lives, interrupt_pending() on the constructing thread reads `cancelled` instead of
// asking the installed poll: the worker threads of a many-process run (program/spmd) stop when
// the thread that launched them, which alone may poll, sets the flag.
class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>& cancelled) noexcept;
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};
// Throws Error(kInterrupted) (after interrupt_pending() answered true).
[[noreturn]] void throw_interrupted();

// Number of threads a large loop uses: the thread setting (set_thread_setting(), else the
// installed setting source, else the environment variable PJRT_NUM_THREADS; malformed values
// count as unset), else what the
// OpenMP runtime offers (OMP_NUM_THREADS, the CPUs of the process's affinity mask), never
// more than OMP_THREAD_LIMIT or the processors available. 1 in builds without OpenMP and in a
// process forked from one that had started threads (the OpenMP runtime's pool is not usable
// after fork(), so its first parallel region there would wait forever for threads that no
// longer exist).
int max_threads();
// The threads the process may run at once: the processors of its affinity mask (read again at
// most every 50 ms), at most OMP_THREAD_LIMIT; 1 in builds without OpenMP.
int usable_processors();
// Lets the threads of the OpenMP team that served this thread's parallel regions exit (no-op
// without one, or inside a region). The GNU runtime keeps a team per thread that starts regions
// and, while its teams hold more threads than the machine has processors, stops spinning at
// barriers for good: every region then puts its threads to sleep and wakes them (a 2-thread
// Cholesky of 1000 ran at one thread's speed). A thread that hands its work to another thread
// (the caller queueing a run, a device's worker going idle) calls this, so that only the busy
// thread's team exists. A later region starts a new team (50-150 us).
void release_thread_team();
// Runs a trivial region of `threads` threads on the calling thread, which leaves its team alive,
// and returns how many threads ran it (for tests of release_thread_team(): the loops' own
// regions depend on sizes and the back-off).
int start_thread_team(int threads);
// True in a child made by fork() (parallel::mclapply and friends) of a process that had
// loaded ndbuf; ndbuf's loops run serially there.
bool in_forked_child();

// The user's thread setting: a positive count, or 0 for "not set here". Throws
// InvalidArgument for a negative count.
void set_thread_setting(int threads);
int thread_setting();
// A source the embedding runtime consults for the setting when set_thread_setting() has
// none (R's option pjrt.threads): returns a positive count, or 0 when unset or malformed;
// must not throw. Only called on the thread that installed it.
using ThreadSettingSource = int (*)();
void set_thread_setting_source(ThreadSettingSource source);

// Threads for a loop over `bytes` bytes: 1 below kParallelBytes, while recent regions were
// contended, or where max_threads() (less the threads reserved on this thread) is 1.
int threads_for(int64_t bytes);

// While it lives, loops started on the constructing thread leave `count` of the max_threads()
// to other work of the caller's (a save's write-behind thread). Nests by adding up.
class ThreadReservation {
 public:
  explicit ThreadReservation(int count);
  ~ThreadReservation();
  ThreadReservation(const ThreadReservation&) = delete;
  ThreadReservation& operator=(const ThreadReservation&) = delete;

 private:
  int count_;
};
// While it lives, max_threads() on the constructing thread answers `threads` (at least 1, at
// most the processors), whatever the setting says, for the loops, the BLAS's products and
// oneDNN's primitives alike: a thread doing work for another runs it with the count that other
// thread decided (a device's worker runs a queued run with the count of the thread that queued
// it, which alone reads R's option; each process of a many-device run gets its share of the
// cores). Nests: the innermost budget counts.
class ThreadBudget {
 public:
  explicit ThreadBudget(int threads);
  ~ThreadBudget();
  ThreadBudget(const ThreadBudget&) = delete;
  ThreadBudget& operator=(const ThreadBudget&) = delete;

 private:
  int previous_;
};
// Records how long the calling thread waited for the team after finishing its own share
// (`wait_ns`) against the time it spent working (`work_ns`), and, over that work, how long it
// was runnable but waited for a processor (`work_queued_ns`, the kernel's run-queue time) or,
// where that is unknown (negative), how long it ran on one (`work_cpu_ns`; negative: unknown).
// A wait far beyond the work means the other threads were not running; a caller queued for
// more than a quarter of its work (of 1 ms or more) and longer than one scheduler tick (or,
// without run-queue times, on a processor for under three quarters of it) means the team
// shares the cores with other processes. Two such regions in a row make parallel loops back
// off for a while (one is a scheduler tick's bad luck on an idle machine); a region with
// neither ends the back-off. Run-queue time
// tells a caller that slept (in the BLAS's barrier, in a page fault) from one that was kept off
// its processor; processor time alone does not: a 2-thread Cholesky's caller ran a third of
// the call on an idle machine and backed the next products off to one thread.
void note_region(int64_t work_ns, int64_t wait_ns, int64_t work_cpu_ns = -1,
                 int64_t work_queued_ns = -1);
// Monotonic nanoseconds.
int64_t now_ns();
// Nanoseconds the calling thread has run on a processor, or -1 where no clock measures it
// finely enough (Windows' thread times advance by whole scheduler ticks).
int64_t thread_cpu_ns();
// The processor time between two thread_cpu_ns() readings, or -1 when either is unknown.
inline int64_t cpu_between(int64_t before, int64_t after) {
  return before < 0 || after < 0 ? -1 : after - before;
}
// The calling thread's processor time and run-queue time (nanoseconds), each -1 where unknown:
// one read of /proc/thread-self/schedstat on Linux (under a microsecond), else the CPU clock.
// Read there, the processor time is as of the thread's last scheduler tick or switch (up to a
// few ms behind a thread that is running); the run-queue time is exact, since a thread reading
// it is running. note_region() reads the processor time only where the run-queue time is unknown.
struct ThreadTimes {
  int64_t cpu_ns = -1;
  int64_t queued_ns = -1;
};
ThreadTimes thread_times();
// note_region() for a region that started at `start` (now_ns()) with the caller's times
// `before`, whose caller finished its share at `work_done` with `after` and waited until now.
void note_region_since(int64_t start, const ThreadTimes& before, int64_t work_done,
                       const ThreadTimes& after);
// True while parallel loops back off after a contended region.
bool parallel_contended();

namespace detail {

// The blocks of [0, count) in rounds of kInterruptElements items; `run_round(round, end)`
// runs one round's blocks. Returns false when an interrupt stopped it between rounds.
template <class Body>
struct BlockPlan {
  int64_t count;
  int64_t block;
  int64_t round_size;
  Body& body;
  int64_t blocks_in(int64_t round) const {
    return (std::min(count, round + round_size) - round + block - 1) / block;
  }
  void run_block(int64_t round, int64_t b) const {
    const int64_t begin = round + b * block;
    body(begin, std::min({count, round + round_size, begin + block}));
  }
};

template <class Body>
bool run_serial(const BlockPlan<Body>& plan) {
  for (int64_t round = 0; round < plan.count; round += plan.round_size) {
    const int64_t blocks = plan.blocks_in(round);
    for (int64_t b = 0; b < blocks; ++b) plan.run_block(round, b);
    if (round + plan.round_size < plan.count && interrupt_pending()) return false;
  }
  return true;
}

#ifdef _OPENMP
// One region for the whole loop: blocks are claimed dynamically (a thread the OS has not
// scheduled yet leaves its blocks to the others), rounds are separated by one barrier after
// the calling thread has polled for an interrupt.
template <class Body>
bool run_parallel(const BlockPlan<Body>& plan, int threads) {
  std::atomic<bool> stop{false};
  const int64_t start = now_ns();
  const ThreadTimes before = thread_times();
  int64_t work_done = start;
  ThreadTimes after = before;
#pragma omp parallel num_threads(threads)
  {
    const bool caller = omp_get_thread_num() == 0;
    for (int64_t round = 0; round < plan.count; round += plan.round_size) {
      const int64_t blocks = plan.blocks_in(round);
#pragma omp for schedule(dynamic, 1) nowait
      for (int64_t b = 0; b < blocks; ++b) plan.run_block(round, b);
      const bool last = round + plan.round_size >= plan.count;
      if (caller && !last && interrupt_pending()) stop.store(true);
      if (caller && last) {
        work_done = now_ns();
        after = thread_times();
      }
      if (last) break;
#pragma omp barrier
      if (stop.load()) break;
    }
  }
  if (!stop.load()) note_region_since(start, before, work_done, after);
  return !stop.load();
}
#endif

}  // namespace detail

// Calls body(begin, end) on disjoint blocks covering [0, count). `body` must not throw.
// `bytes_per_item` (input plus output) decides whether threads are worth starting (0: never);
// `elements_per_item` > 1 when an item is a whole row, so blocks hold a similar amount of work.
// Throws Error(kInterrupted) when the user interrupted between rounds (blocks of later rounds
// have not run then).
// The bytes a loop of `count` items moves, saturating: what threads_for() is asked; a loop under
// kParallelBytes runs on the calling thread alone.
inline int64_t loop_bytes(int64_t count, int64_t bytes_per_item) {
  return count > INT64_MAX / std::max<int64_t>(1, bytes_per_item) ? INT64_MAX
                                                                  : count * bytes_per_item;
}

template <class Body>
void for_each_block(int64_t count, int64_t bytes_per_item, Body&& body,
                    int64_t elements_per_item = 1) {
  if (count <= 0) return;
  const int64_t per_item = std::max<int64_t>(1, elements_per_item);
  const detail::BlockPlan<Body> plan{count, std::max<int64_t>(1, kBlockElements / per_item),
                                     std::max<int64_t>(1, kInterruptElements / per_item), body};
  // Serial loops never enter the OpenMP runtime (even a one-thread region touches its pool,
  // which a forked child must not).
  [[maybe_unused]] const int threads = threads_for(loop_bytes(count, bytes_per_item));
  bool completed = true;
#ifdef _OPENMP
  if (threads > 1) {
    completed = detail::run_parallel(plan, threads);
  } else {
    completed = detail::run_serial(plan);
  }
#else
  completed = detail::run_serial(plan);
#endif
  if (!completed) throw_interrupted();
}

// for_each_block for a body that may throw (no exception may leave a parallel region): the
// first exception is kept, the blocks not yet started are skipped, and it is rethrown here once
// the loop is done.
template <class Body>
void for_each_block_rethrowing(int64_t count, int64_t bytes_per_item, Body&& body,
                               int64_t elements_per_item = 1) {
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  for_each_block(
      count, bytes_per_item,
      [&](int64_t begin, int64_t end) {
        if (failed.load(std::memory_order_relaxed)) return;
        try {
          body(begin, end);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) error = std::current_exception();
        }
      },
      elements_per_item);
  if (error) std::rethrow_exception(error);
}

}  // namespace ndbuf

namespace ndbuf {
// memcpy that spreads large copies over the available cores (page faults on fresh memory
// dominate big copies, and they are taken in parallel too).
void copy_bytes(void* dst, const void* src, size_t nbytes);
}  // namespace ndbuf
