// Block-parallel loops: the thread setting, contention back-off, fork marking and interrupt
// polling.
#include "ndbuf/memory/parallel.hpp"

#include <pthread.h>
#ifndef _WIN32
#include <signal.h>
#endif
#ifdef __linux__
#include <fcntl.h>
#include <unistd.h>
#endif

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

std::atomic<InterruptPoll> g_interrupt_poll{nullptr};

std::atomic<bool> g_forked_child{false};

void mark_forked_child() { g_forked_child.store(true); }

// Registered when the library loads, so every later fork() marks its child.
const int g_atfork_registered = ::pthread_atfork(nullptr, nullptr, &mark_forked_child);

}  // namespace

bool in_forked_child() { return g_forked_child.load(); }

void block_async_signals() {
#ifndef _WIN32
  sigset_t set;
  sigfillset(&set);
  // Faults are delivered to the thread that caused them; blocking them would hide a crash.
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&set, fault);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
#endif
}

void set_interrupt_poll(InterruptPoll poll) { g_interrupt_poll.store(poll); }

namespace {
thread_local const std::atomic<bool>* t_cancelled = nullptr;
}  // namespace

CancelScope::CancelScope(const std::atomic<bool>& cancelled) noexcept : previous_(t_cancelled) {
  t_cancelled = &cancelled;
}

CancelScope::~CancelScope() { t_cancelled = previous_; }

bool interrupt_pending() {
  if (t_cancelled != nullptr) return t_cancelled->load(std::memory_order_relaxed);
  const InterruptPoll poll = g_interrupt_poll.load();
  return poll != nullptr && poll();
}

void throw_interrupted() { fail(ErrorKind::kInterrupted, "Interrupted by the user."); }

void check_interrupt() {
  if (interrupt_pending()) throw_interrupted();
}

void check_interrupt_periodically() {
  thread_local int64_t last_poll_ns = 0;
  const int64_t now = now_ns();
  if (now - last_poll_ns < kInterruptPollNs) return;
  last_poll_ns = now;
  check_interrupt();
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t thread_cpu_ns() {
#if defined(CLOCK_THREAD_CPUTIME_ID) && !defined(_WIN32)
  // A clock coarser than this would read whole milliseconds of work as none.
  static const bool fine = [] {
    timespec resolution{};
    return clock_getres(CLOCK_THREAD_CPUTIME_ID, &resolution) == 0 && resolution.tv_sec == 0 &&
           resolution.tv_nsec <= 10000;
  }();
  timespec now{};
  if (!fine || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return -1;
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
#else
  return -1;
#endif
}

#ifdef __linux__
namespace {

// The calling thread's /proc/thread-self/schedstat ("<ns on a processor> <ns queued> <slices>"),
// opened on the thread's first read and closed when it ends. A fork() child reads nothing: its
// inherited descriptor names the parent's thread.
class SchedstatFile {
 public:
  ~SchedstatFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool read(ThreadTimes& times) {
    if (fd_ == kUnopened) fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd_ < 0 || in_forked_child()) return false;
    char text[128];
    const ssize_t n = ::pread(fd_, text, sizeof(text) - 1, 0);
    if (n <= 0) return false;
    text[n] = '\0';
    char* end = nullptr;
    const long long cpu = std::strtoll(text, &end, 10);
    const long long queued = std::strtoll(end, &end, 10);
    if (cpu < 0 || queued < 0) return false;
    times.cpu_ns = cpu;
    times.queued_ns = queued;
    return true;
  }

 private:
  static constexpr int kUnopened = -2;
  int fd_ = kUnopened;
};

thread_local SchedstatFile t_schedstat;

}  // namespace
#endif

ThreadTimes thread_times() {
  ThreadTimes times;
#ifdef __linux__
  if (t_schedstat.read(times)) return times;
#endif
  times.cpu_ns = thread_cpu_ns();
  return times;
}

}  // namespace ndbuf
