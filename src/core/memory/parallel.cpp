// Block-parallel loops: the thread setting, contention back-off, fork marking and interrupt
// polling.
#include "ndbuf/memory/parallel.hpp"

#include <pthread.h>
#ifndef _WIN32
#include <signal.h>
#endif

#include <atomic>
#include <chrono>
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

}  // namespace ndbuf
