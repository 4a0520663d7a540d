// How many threads parallel loops use: the user's setting, the OpenMP runtime's limits and
// the back-off after contended regions.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "ndbuf/base/environment.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

std::atomic<int> g_thread_setting{0};
std::atomic<ThreadSettingSource> g_setting_source{nullptr};
std::thread::id g_source_thread;

// Contention back-off: loops stay serial until this time; the pause doubles with each
// contended region in a row (up to kMaxBackoffShift doublings of kBackoffNs). The first
// contended region of a row starts none: on an idle machine a single region now and then waits
// one scheduler tick (4 ms) for a thread, when another thread of the process spins on the other
// processor (an OpenMP team that has just finished, or is about to be released, spins for
// milliseconds at its barrier; so do other processes' teams after their last loop), and a
// pause of 100 ms to 6.4 s at one thread's speed cost far more than that tick. Another process
// that keeps the cores busy makes every region wait, so the second region in a row backs off.
std::atomic<int64_t> g_serial_until_ns{0};
std::atomic<int> g_backoff_shift{0};
std::atomic<int> g_contended_in_row{0};
constexpr int kContendedRegionsBeforeBackoff = 2;
constexpr int64_t kBackoffNs = int64_t{100} * 1000 * 1000;
constexpr int kMaxBackoffShift = 6;
// A wait for the team under this is normal jitter on an idle machine.
constexpr int64_t kTolerableWaitNs = int64_t{200} * 1000;
// Work shorter than this says nothing by the caller's processor time (a page fault or one
// time slice is most of it).
constexpr int64_t kStarvedWorkNs = int64_t{1000} * 1000;
// A caller queued up to this long lost one scheduler tick (4 ms at 250 Hz) to a thread that
// ran until the tick preempted it: on an idle 2-core machine a run of max-pool regions showed
// callers queued 4.00-4.09 ms, two regions in a row now and then, which backed the next 100 ms
// off to one thread. Another process that keeps the cores busy holds a caller for more than
// one tick in a region of several milliseconds.
constexpr int64_t kOneTickQueuedNs = int64_t{5} * 1000 * 1000;

// PJRT_NUM_THREADS as a count: 0 when unset, empty or not a positive whole number (loops
// must not throw for it: they run where no error can be reported, such as R's ALTREP
// callbacks; R's pjrt_threads() reports a malformed value).
int environment_setting() {
  const WholeNumberSetting setting = whole_number_setting("PJRT_NUM_THREADS");
  if (!setting.valid() || setting.value < 1) return 0;
  return static_cast<int>(std::min(setting.value, 1LL << 20));
}

int source_setting() {
  const ThreadSettingSource source = g_setting_source.load();
  if (source == nullptr || std::this_thread::get_id() != g_source_thread) return 0;
  return source();
}

// The processors this process may run on, read again at most every kProcessorsCheckNs:
// omp_get_num_procs() asks the kernel for the affinity mask (a system call), and loops and
// products of a few microseconds ask for the thread count every time.
#ifdef _OPENMP
constexpr int64_t kProcessorsCheckNs = int64_t{50} * 1000 * 1000;
std::atomic<int> g_processors{0};
std::atomic<int64_t> g_processors_checked_ns{0};

int processors() {
  const int64_t now = now_ns();
  int known = g_processors.load(std::memory_order_relaxed);
  if (known == 0 ||
      now - g_processors_checked_ns.load(std::memory_order_relaxed) > kProcessorsCheckNs) {
    known = omp_get_num_procs();
    g_processors.store(known, std::memory_order_relaxed);
    g_processors_checked_ns.store(now, std::memory_order_relaxed);
  }
  return known;
}
#endif

// The threads the process may use at most: OpenMP's thread limit and the processors.
int runtime_ceiling() {
#ifdef _OPENMP
  return std::max(1, std::min(omp_get_thread_limit(), processors()));
#else
  return 1;
#endif
}

// OpenMP's count as it stood on first use: the BLAS thread setter (OpenBLAS's OpenMP build sets
// the calling thread's OpenMP count to the BLAS's) must not become the default it is set from.
int runtime_default() {
#ifdef _OPENMP
  static const int initial = omp_get_max_threads();
  return initial;
#else
  return 1;
#endif
}

}  // namespace

void set_thread_setting(int threads) {
  if (threads < 0) {
    fail(ErrorKind::kInvalidArgument,
         "The thread count must be positive, not " + std::to_string(threads) + ".");
  }
  g_thread_setting.store(threads);
}

int thread_setting() { return g_thread_setting.load(); }

void set_thread_setting_source(ThreadSettingSource source) {
  g_source_thread = std::this_thread::get_id();
  g_setting_source.store(source);
}

int usable_processors() { return runtime_ceiling(); }

namespace {
thread_local int t_thread_budget = 0;  // 0: no ThreadBudget on this thread
}  // namespace

ThreadBudget::ThreadBudget(int threads) : previous_(t_thread_budget) {
  t_thread_budget = std::max(1, threads);
}

ThreadBudget::~ThreadBudget() { t_thread_budget = previous_; }

int max_threads() {
  if (in_forked_child()) return 1;
  if (t_thread_budget > 0) return std::min(t_thread_budget, runtime_ceiling());
  int wanted = g_thread_setting.load();
  if (wanted == 0) wanted = source_setting();
  if (wanted == 0) wanted = environment_setting();
  if (wanted == 0) wanted = runtime_default();
  return std::max(1, std::min(wanted, runtime_ceiling()));
}

bool parallel_contended() { return now_ns() < g_serial_until_ns.load(); }

namespace {
thread_local int t_reserved_threads = 0;
}  // namespace

ThreadReservation::ThreadReservation(int count) : count_(std::max(0, count)) {
  t_reserved_threads += count_;
}

ThreadReservation::~ThreadReservation() { t_reserved_threads -= count_; }

int threads_for(int64_t bytes) {
  if (bytes < kParallelBytes || parallel_contended()) return 1;
  const int threads = max_threads() - t_reserved_threads;
  if (threads <= 1) return 1;
  // Each thread gets at least kParallelBytes / 2 of work.
  const int64_t useful = std::max<int64_t>(2, bytes / (kParallelBytes / 2));
  return static_cast<int>(std::min<int64_t>(threads, useful));
}

void note_region(int64_t work_ns, int64_t wait_ns, int64_t work_cpu_ns, int64_t work_queued_ns) {
  const bool waited = wait_ns > kTolerableWaitNs && wait_ns > work_ns;
  const bool starved =
      work_ns >= kStarvedWorkNs &&
      (work_queued_ns >= 0 ? 4 * work_queued_ns > work_ns && work_queued_ns > kOneTickQueuedNs
                           : work_cpu_ns >= 0 && 4 * work_cpu_ns < 3 * work_ns);
  if (!waited && !starved) {
    g_contended_in_row.store(0);
    g_backoff_shift.store(0);
    g_serial_until_ns.store(0);
    return;
  }
  const int in_row = std::min(g_contended_in_row.load() + 1, kContendedRegionsBeforeBackoff);
  g_contended_in_row.store(in_row);
  if (in_row < kContendedRegionsBeforeBackoff) return;
  const int shift = std::min(g_backoff_shift.load() + 1, kMaxBackoffShift);
  g_backoff_shift.store(shift);
  g_serial_until_ns.store(now_ns() + (kBackoffNs << (shift - 1)));
}

void note_region_since(int64_t start, const ThreadTimes& before, int64_t work_done,
                       const ThreadTimes& after) {
  note_region(work_done - start, now_ns() - work_done, cpu_between(before.cpu_ns, after.cpu_ns),
              cpu_between(before.queued_ns, after.queued_ns));
}

}  // namespace ndbuf

namespace ndbuf {

void copy_bytes(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  if (2 * nbytes < static_cast<size_t>(kParallelBytes)) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  constexpr int64_t kPiece = int64_t{1} << 18;
  char* out = static_cast<char*>(dst);
  const char* in = static_cast<const char*>(src);
  const auto pieces = static_cast<int64_t>((nbytes + kPiece - 1) / kPiece);
  // Pieces of 256 KiB (512 KiB read and written) are the items: for_each_block decides on threads.
  for_each_block(
      pieces, 2 * kPiece,
      [&](int64_t begin, int64_t end) {
        const size_t from = static_cast<size_t>(begin * kPiece);
        const size_t to = std::min(nbytes, static_cast<size_t>(end * kPiece));
        std::memcpy(out + from, in + from, to - from);
      },
      1 << 14);
}

}  // namespace ndbuf
