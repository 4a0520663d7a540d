// Runs on the device queues (execute_async()): a run returns at once and its results wait;
// runs on one device keep their order; an error of the run surfaces at the wait; an interrupt
// while waiting cancels the work; quick runs take the calling thread; a forked child runs work
// of its own; stopping the queues (as the process exits) cancels the work and waits for it.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_queue.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/program/program.hpp"
#include "program/kernels/blas_threads.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::values;

// Counts from 0 to `n` one step at a time: n iterations of a while loop (about 0.1 us each).
const char* kCount = R"(
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next : tensor<i64>
  }
  return %r : tensor<i64>
}
)";

Tensor scalar_i64(int64_t v) { return testing::i64({}, {v}); }

// A trip count of kCount whose run lasts about 100 ms in this build, at most 10^6: the tests
// need runs still going when they look, and a sanitized debug build runs the loop some 500
// times slower than an optimised one (10^6 trips took 55 s there).
int64_t lasting_count() {
  static const int64_t count = [] {
    constexpr int64_t kProbe = 10000;
    const auto exe = compile(kCount);
    const auto start = std::chrono::steady_clock::now();
    execute(*exe, {scalar_i64(kProbe)});
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    const double scaled = kProbe * 100.0 / std::max(took.count(), 1e-3);
    return std::clamp<int64_t>(static_cast<int64_t>(scaled), kProbe, 1000000);
  }();
  return count;
}

class ExecuteAsync : public ::testing::Test {
 protected:
  void TearDown() override {
    set_interrupt_poll(nullptr);
    drain_queues();
  }
};

TEST_F(ExecuteAsync, ARunReturnsAtOnceAndItsResultsWait) {
  const auto exe = compile(kCount);
  const int64_t n = lasting_count();
  const auto start = std::chrono::steady_clock::now();
  const auto pending = execute_async(exe, {scalar_i64(n)});
  const auto returned = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(pending->ready());
  EXPECT_FALSE(pending->take_all_if_fulfilled().has_value());  // never waits
  EXPECT_GE(jobs_in_flight(), 1);
  EXPECT_EQ(values<int64_t>(pending->wait()[0]), (std::vector<int64_t>{n}));
  EXPECT_TRUE(pending->ready());
  // Returning took a small part of the run.
  EXPECT_LT(returned * 5, std::chrono::steady_clock::now() - start);
}

TEST_F(ExecuteAsync, RunsOnOneDeviceKeepTheirOrder) {
  const auto exe = compile(kCount);
  const int64_t n = lasting_count();
  const auto slow = execute_async(exe, {scalar_i64(n)});
  const auto fast = execute_async(exe, {scalar_i64(1)});
  // The fast run waits for the slow one queued before it.
  EXPECT_EQ(values<int64_t>(fast->wait()[0]), (std::vector<int64_t>{1}));
  EXPECT_TRUE(slow->ready());
  EXPECT_EQ(values<int64_t>(slow->wait()[0]), (std::vector<int64_t>{n}));
}

TEST_F(ExecuteAsync, AnErrorOfTheRunSurfacesAtEveryWait) {
  const auto exe = compile(R"(
func.func @main(%x: tensor<i64>) -> tensor<i64> {
  check.expect_eq_const %x, dense<7> : tensor<i64>
  return %x : tensor<i64>
}
)");
  const auto pending = execute_async(exe, {scalar_i64(3)});
  for (int k = 0; k < 2; ++k) {
    try {
      pending->wait();
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), "check.expect_eq_const failed at index (): got 3, expected 7");
    }
  }
  EXPECT_FALSE(pending->take_all_if_fulfilled().has_value());  // failed: its waits rethrow
  // Errors of the call itself are thrown at once.
  try {
    execute_async(exe, {testing::f32({}, {1})});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "argument 1 of @main must have element type i64, not f32");
  }
}

std::atomic<int> g_polls{0};
bool poll_fires_later() { return ++g_polls > 3; }

TEST_F(ExecuteAsync, AnInterruptWhileWaitingCancelsTheWork) {
  const auto exe = compile(kCount);
  const auto running = execute_async(exe, {scalar_i64(int64_t{1} << 40)});  // hours
  const auto queued = execute_async(exe, {scalar_i64(5)});
  g_polls = 0;
  set_interrupt_poll(&poll_fires_later);
  const auto start = std::chrono::steady_clock::now();
  try {
    running->wait();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInterrupted);
  }
  set_interrupt_poll(nullptr);
  // Queued now, while the cancelled runs may still be ending: it is not cancelled.
  const auto after = execute_async(exe, {scalar_i64(9)});
  // The running loop stopped, the queued run never started: both fail as interrupted.
  for (const auto& pending : {running, queued}) {
    try {
      pending->wait();
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInterrupted);
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(values<int64_t>(after->wait()[0]), (std::vector<int64_t>{9}));
}

// A program without loops whose runs are quick runs on the calling thread while no queued run
// has yet to report; behind queued work it queues; a program with a loop always queues.
TEST_F(ExecuteAsync, QuickRunsTakeTheCallingThreadWhenNothingWaits) {
  const auto twice = compile(R"(
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
)");
  EXPECT_FALSE(runs_on_calling_thread(*twice));  // no run measured yet
  // Every run of a sanitizer build on a busy host may take longer than the usual limit.
  struct LimitRestored {
    int64_t ns = set_quick_run_ns(int64_t{1} << 40);
    ~LimitRestored() { set_quick_run_ns(ns); }
  } const restored;
  const auto run = execute_async(twice, {testing::f32({3}, {1, 2, 3})});
  EXPECT_EQ(values<float>(run->wait()[0]), (std::vector<float>{2, 4, 6}));
  EXPECT_TRUE(runs_on_calling_thread(*twice));
  set_quick_run_ns(0);  // no run is that quick
  EXPECT_FALSE(runs_on_calling_thread(*twice));
  set_quick_run_ns(int64_t{1} << 40);
  const auto now = execute_async(twice, {testing::f32({3}, {4, 5, 6})});
  EXPECT_TRUE(now->ready());
  EXPECT_EQ(values<float>(now->wait()[0]), (std::vector<float>{8, 10, 12}));
  const auto taken = execute_async(twice, {testing::f32({3}, {1, 0, -1})})->take_all_if_fulfilled();
  ASSERT_TRUE(taken.has_value());
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ(values<float>((*taken)[0]), (std::vector<float>{2, 0, -2}));

  const auto count = compile(kCount);
  const auto slow = execute_async(count, {scalar_i64(lasting_count())});
  EXPECT_FALSE(runs_on_calling_thread(*twice));
  const auto behind = execute_async(twice, {testing::f32({3}, {7, 8, 9})});
  EXPECT_EQ(values<float>(behind->wait()[0]), (std::vector<float>{14, 16, 18}));
  EXPECT_TRUE(slow->ready());  // the quick run did not overtake it

  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(values<int64_t>(execute_async(count, {scalar_i64(1)})->wait()[0]),
              (std::vector<int64_t>{1}));
  }
  EXPECT_FALSE(runs_on_calling_thread(*count));  // its runs were quick, but it loops
}

// R's option pjrt.threads is a setting source only R's thread may read: a run queued there runs
// on the worker with R's count (its products set the BLAS to it), not the runtime's default.
TEST_F(ExecuteAsync, AQueuedRunUsesTheThreadCountOfTheThreadThatQueuedIt) {
  if (std::string(blas_thread_library()).empty()) GTEST_SKIP() << "no BLAS thread setter";
  int worker_default = 0;
  enqueue_on(Device{}, [&] { worker_default = max_threads(); });
  drain_queues();
  if (worker_default < 2) GTEST_SKIP() << "one thread by default";
  set_thread_setting_source([] { return 1; });
  struct Restored {
    int64_t ns = set_quick_run_ns(0);  // every run queued
    ~Restored() {
      set_quick_run_ns(ns);
      set_thread_setting_source(nullptr);
    }
  } const restored;
  ASSERT_EQ(max_threads(), 1);
  const auto product = compile(R"(
func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
)");
  const Tensor ones = testing::f32({256, 256}, std::vector<float>(256 * 256, 1.0F));
  const auto run = execute_async(product, {ones, ones});
  EXPECT_EQ(values<float>(run->wait()[0]), std::vector<float>(256 * 256, 256.0F));
  int worker_blas = 0;
  enqueue_on(Device{}, [&] { worker_blas = blas_threads(); });
  drain_queues();
  EXPECT_EQ(worker_blas, 1);
}

TEST_F(ExecuteAsync, AForkedChildRunsWorkOfItsOwn) {
  const auto exe = compile(kCount);
  const int64_t n = lasting_count() / 2;
  const auto pending = execute_async(exe, {scalar_i64(n)});
  const pid_t child = fork();  // waits for the queue to empty first
  if (child == 0) {
    // No worker was copied into the child; its first run starts one.
    const bool ok = values<int64_t>(execute_async(exe, {scalar_i64(11)})->wait()[0]) ==
                    std::vector<int64_t>{11};
    _exit(ok ? 0 : 1);
  }
  ASSERT_GT(child, 0);
  EXPECT_TRUE(pending->ready());  // the fork waited for it
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(values<int64_t>(pending->wait()[0]), (std::vector<int64_t>{n}));
}

TEST_F(ExecuteAsync, StoppingTheQueuesCancelsEveryRunAndWaitsForThem) {
  const auto exe = compile(kCount);
  const auto running = execute_async(exe, {scalar_i64(int64_t{1} << 40)});  // hours
  const auto queued = execute_async(exe, {scalar_i64(5)});
  const auto start = std::chrono::steady_clock::now();
  stop_queued_work();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(jobs_in_flight(), 0);
  for (const auto& pending : {running, queued}) {
    ASSERT_TRUE(pending->ready());
    try {
      pending->wait();
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInterrupted);
    }
  }
  EXPECT_EQ(values<int64_t>(execute_async(exe, {scalar_i64(7)})->wait()[0]),
            (std::vector<int64_t>{7}));
}

// Set in the forked child of ExitingStopsTheRunningJobFirst just before it exits. LeakSanitizer
// asks this hook before its check at exit: a forked child's OpenMP runtime holds memory of
// threads that exist only in its parent, which the check would report as the child's leaks.
std::atomic<bool> g_forked_child_exits{false};

}  // namespace
}  // namespace ndbuf::program

extern "C" int __lsan_is_turned_off() {
  return ndbuf::program::g_forked_child_exits.load() ? 1 : 0;
}

namespace ndbuf::program {
namespace {

// A process that exits while a job runs stops it before exit() tears down the libraries it
// calls: the job sees its cancellation and ends first (a worker left running crashed in the
// BLAS as the process ended). The job, in a forked child, tells the parent through a pipe.
TEST_F(ExecuteAsync, ExitingStopsTheRunningJobFirst) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  std::fflush(nullptr);  // the child's exit() flushes what it inherits
  const pid_t child = fork();
  if (child == 0) {
    close(ends[0]);
    std::atomic<bool> started{false};
    enqueue_on(Device{}, [&started, out = ends[1]] {
      started = true;
      while (!interrupt_pending()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const char cancelled = 'c';
      if (write(out, &cancelled, 1) != 1) _exit(2);
    });
    while (!started) std::this_thread::yield();
    g_forked_child_exits = true;
    std::exit(0);  // the atexit() handlers run here
  }
  ASSERT_GT(child, 0);
  close(ends[1]);
  pollfd readable{ends[0], POLLIN, 0};
  ASSERT_EQ(poll(&readable, 1, 10'000), 1) << "the child neither wrote nor ended";
  char told = 0;
  EXPECT_EQ(read(ends[0], &told, 1), 1) << "the child ended with its job still running";
  EXPECT_EQ(told, 'c');
  close(ends[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace ndbuf::program
