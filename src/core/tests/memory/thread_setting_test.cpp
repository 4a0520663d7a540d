// Tests of the thread setting, its sources and the back-off after contended regions.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

int g_source_answer = 0;
int answer_source() { return g_source_answer; }

// Unsets every source of the setting around each test.
class ThreadSetting : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    set_thread_setting(0);
    set_thread_setting_source(nullptr);
    g_source_answer = 0;
    ::unsetenv("PJRT_NUM_THREADS");
  }
};

TEST_F(ThreadSetting, DefaultsToTheRuntimeAndNeverExceedsTheProcessors) {
  const int fallback = max_threads();
  EXPECT_GE(fallback, 1);
  EXPECT_LE(fallback, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  set_thread_setting(100000);
  EXPECT_GE(max_threads(), fallback);  // as many as the processors allow
  EXPECT_LE(max_threads(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST_F(ThreadSetting, SettingThenSourceThenEnvironment) {
  ::setenv("PJRT_NUM_THREADS", "1", 1);
  EXPECT_EQ(max_threads(), 1);
  g_source_answer = 1;
  set_thread_setting_source(&answer_source);
  EXPECT_EQ(max_threads(), 1);
  set_thread_setting(1);
  EXPECT_EQ(thread_setting(), 1);
  EXPECT_EQ(max_threads(), 1);
  set_thread_setting(0);
  ::unsetenv("PJRT_NUM_THREADS");
  EXPECT_EQ(max_threads(), 1);  // the source alone
}

TEST_F(ThreadSetting, MalformedEnvironmentIsIgnored) {
  set_thread_setting(0);
  const int fallback = max_threads();
  for (const char* text : {"", "0", "-2", "two", "3x"}) {
    ::setenv("PJRT_NUM_THREADS", text, 1);
    EXPECT_EQ(max_threads(), fallback) << text;
  }
}

TEST_F(ThreadSetting, SourceIsOnlyAskedOnItsOwnThread) {
  g_source_answer = 1;
  set_thread_setting_source(&answer_source);
  EXPECT_EQ(max_threads(), 1);
  int elsewhere = 0;
  set_thread_setting(0);
  std::thread other([&] { elsewhere = max_threads(); });
  other.join();
  set_thread_setting_source(nullptr);
  EXPECT_EQ(elsewhere, max_threads());  // the runtime's default there
}

TEST_F(ThreadSetting, NegativeCountIsAnError) {
  try {
    set_thread_setting(-1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_STREQ(e.what(), "The thread count must be positive, not -1.");
  }
}

TEST_F(ThreadSetting, SmallWorkStaysOnTheCallingThread) {
  EXPECT_EQ(threads_for(0), 1);
  EXPECT_EQ(threads_for(kParallelBytes - 1), 1);
  set_thread_setting(1);
  EXPECT_EQ(threads_for(int64_t{1} << 40), 1);
}

TEST_F(ThreadSetting, AReservationLeavesThreadsToOtherWorkOnItsThreadOnly) {
  set_thread_setting(2);
  if (max_threads() < 2) GTEST_SKIP() << "one processor";
  note_region(1000, 0);  // no back-off
  const int64_t large = int64_t{1} << 40;
  EXPECT_EQ(threads_for(large), 2);
  {
    const ThreadReservation writer(1);
    EXPECT_EQ(threads_for(large), 1);
    int elsewhere = 0;
    std::thread([&] { elsewhere = threads_for(large); }).join();
    EXPECT_EQ(elsewhere, 2);
    {
      const ThreadReservation more(3);  // more than there are: still one thread
      EXPECT_EQ(threads_for(large), 1);
    }
    EXPECT_EQ(threads_for(large), 1);
  }
  EXPECT_EQ(threads_for(large), 2);
  const ThreadReservation none(0);
  EXPECT_EQ(threads_for(large), 2);
}

TEST_F(ThreadSetting, ABudgetSetsTheCountOnItsThreadOnly) {
  set_thread_setting(2);
  if (max_threads() < 2) GTEST_SKIP() << "one processor";
  note_region(1000, 0);  // no back-off
  const int64_t large = int64_t{1} << 40;
  {
    const ThreadBudget one(1);
    EXPECT_EQ(max_threads(), 1);
    EXPECT_EQ(threads_for(large), 1);
    int elsewhere = 0;
    std::thread([&] { elsewhere = max_threads(); }).join();
    EXPECT_EQ(elsewhere, 2);
    {
      const ThreadBudget many(1 << 20);  // never more than the processors
      EXPECT_EQ(max_threads(), usable_processors());
      const ThreadBudget none(0);  // at least one
      EXPECT_EQ(max_threads(), 1);
    }
    EXPECT_EQ(max_threads(), 1);
    set_thread_setting(2);  // a budget outranks the setting
    EXPECT_EQ(max_threads(), 1);
  }
  EXPECT_EQ(max_threads(), 2);
  EXPECT_EQ(threads_for(large), 2);
}

TEST_F(ThreadSetting, ContendedRegionBacksOffThenRecovers) {
  note_region(1000, 0);  // an uncontended region ends any back-off
  EXPECT_FALSE(parallel_contended());
  note_region(1000000, 500000);  // waited less than it worked: fine
  EXPECT_FALSE(parallel_contended());
  note_region(1000, 20000000);         // waited 20 ms for threads after 1 us of work
  EXPECT_FALSE(parallel_contended());  // one such region in a row is a scheduler tick's bad luck
  note_region(1000, 20000000);
  EXPECT_TRUE(parallel_contended());
  EXPECT_EQ(threads_for(int64_t{1} << 40), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // the first pause is 100 ms
  EXPECT_FALSE(parallel_contended());
  note_region(1000, 0);
}

TEST_F(ThreadSetting, OnlyContendedRegionsInARowBackOff) {
  note_region(1000, 0);
  for (int k = 0; k < 3; ++k) {  // contended regions, each followed by an uncontended one
    note_region(1000, 20000000);
    EXPECT_FALSE(parallel_contended());
    note_region(1000, 0);
  }
  note_region(1000, 20000000);
  note_region(20000000, 0, 14000000, 6000000);  // either kind of contention counts
  EXPECT_TRUE(parallel_contended());
  // A probe after the pause that finds contention again backs off at once.
  note_region(1000, 20000000);
  EXPECT_TRUE(parallel_contended());
  note_region(1000, 0);
  EXPECT_FALSE(parallel_contended());
}

TEST_F(ThreadSetting, ACallerOffItsProcessorBacksOff) {
  note_region(1000, 0);
  // 10 ms of the caller's work, 9 of them on a processor: it had a core.
  note_region(10000000, 0, 9000000);
  EXPECT_FALSE(parallel_contended());
  // Work under a millisecond says nothing, however little of it ran.
  note_region(900000, 0, 100000);
  EXPECT_FALSE(parallel_contended());
  // A caller that slept waiting for the team after its work is not starved: the rule reads
  // the work alone (and a 2 ms wait after 10 ms of work is no contended wait either).
  note_region(10000000, 2000000, 9500000);
  EXPECT_FALSE(parallel_contended());
  // An unknown processor time (-1) decides nothing.
  note_region(10000000, 0, cpu_between(-1, 5));
  EXPECT_FALSE(parallel_contended());
  // 12 ms of work, 8 of them on a processor: the caller shared its core (twice in a row).
  note_region(12000000, 0, 8000000);
  EXPECT_FALSE(parallel_contended());
  note_region(12000000, 0, 8000000);
  EXPECT_TRUE(parallel_contended());
  note_region(1000, 0);
  EXPECT_FALSE(parallel_contended());
}

TEST_F(ThreadSetting, ThreadProcessorTimeCountsWorkNotSleep) {
  const int64_t before = thread_cpu_ns();
  if (before < 0) GTEST_SKIP() << "no thread CPU clock";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int64_t slept = thread_cpu_ns() - before;
  EXPECT_LT(slept, 25000000);  // sleeping takes (almost) no processor time
  volatile double sink = 0;
  const int64_t start = now_ns(), spin_before = thread_cpu_ns();
  while (now_ns() - start < 20000000) sink = sink + 1;
  // 20 ms of spinning: at least 1 ms of it even on a busy machine.
  EXPECT_GT(thread_cpu_ns() - spin_before, std::max<int64_t>(slept, 1000000));
}

TEST_F(ThreadSetting, RunQueueTimeDecidesWhereItIsKnown) {
  note_region(1000, 0);
  // 12 ms of work, a third of it on a processor and none of it queued: the caller slept (in
  // the BLAS's barrier), nobody took its core.
  note_region(12000000, 0, 4000000, 0);
  EXPECT_FALSE(parallel_contended());
  // Queued a fifth of its work: not enough to back off.
  note_region(10000000, 0, 8000000, 2000000);
  EXPECT_FALSE(parallel_contended());
  // Under a millisecond of work says nothing, however long it was queued.
  note_region(900000, 0, 0, 900000);
  EXPECT_FALSE(parallel_contended());
  // Queued one scheduler tick (4 ms at 250 Hz) of 8 ms, twice in a row: a thread that ran
  // until the tick preempted it, which happens on an idle machine.
  note_region(8000000, 0, 4000000, 4090000);
  note_region(8000000, 0, 4000000, 4090000);
  EXPECT_FALSE(parallel_contended());
  // Queued more than a tick and over a quarter of 20 ms: other work held its core (twice in a
  // row).
  note_region(20000000, 0, 14000000, 6000000);
  EXPECT_FALSE(parallel_contended());
  note_region(20000000, 0, 14000000, 6000000);
  EXPECT_TRUE(parallel_contended());
  note_region(1000, 0);
  EXPECT_FALSE(parallel_contended());
}

// Both sides of the back-off on real threads: a caller that sleeps is never judged contended,
// one that shares its processor with busy threads is.
TEST_F(ThreadSetting, RunQueueTimeCountsWaitingForAProcessorNotSleep) {
  const ThreadTimes first = thread_times();
  if (first.queued_ns < 0) GTEST_SKIP() << "no run-queue times (Linux's schedstat)";
  int64_t start = now_ns();
  // 40 ms asleep: a woken thread may wait for a processor on a busy machine, but not 10 ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  ThreadTimes after = thread_times();
  note_region(now_ns() - start, 0, after.cpu_ns - first.cpu_ns, after.queued_ns - first.queued_ns);
  EXPECT_LT(after.queued_ns - first.queued_ns, 10000000);
  EXPECT_FALSE(parallel_contended());
  // Twice as many spinning threads as processors, then two regions of 40 ms of work here: this
  // thread gets at most a third of a processor's time, and waits in the run queue for the rest.
  const int processors = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  for (int k = 0; k < 2 * processors; ++k) {
    spinners.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  }
  std::vector<int64_t> works, queued;
  for (int region = 0; region < 2; ++region) {
    const ThreadTimes before = thread_times();
    start = now_ns();
    volatile double sink = 0;
    while (now_ns() - start < 40000000) sink = sink + 1;
    after = thread_times();
    works.push_back(now_ns() - start);
    queued.push_back(after.queued_ns - before.queued_ns);
    note_region(works.back(), 0, after.cpu_ns - before.cpu_ns, queued.back());
  }
  stop.store(true);
  for (std::thread& spinner : spinners) spinner.join();
  for (size_t k = 0; k < works.size(); ++k) EXPECT_GT(4 * queued[k], works[k]) << k;
  EXPECT_TRUE(parallel_contended());
  note_region(1000, 0);
}

TEST_F(ThreadSetting, EveryIndexOnceWhateverTheThreads) {
  for (int threads : {1, 2, 3, 8}) {
    set_thread_setting(threads);
    for (int64_t count : {int64_t{1}, kBlockElements + 1, 64 * kBlockElements + 5}) {
      std::vector<uint8_t> seen(static_cast<size_t>(count), 0);
      for_each_block(count, 8, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) ++seen[i];
      });
      for (int64_t i = 0; i < count; ++i) ASSERT_EQ(seen[i], 1) << threads << " " << count;
    }
  }
}

}  // namespace
}  // namespace ndbuf
