// Tests that a thread's OpenMP team ends when the thread hands its work over: released
// explicitly, by queueing a job, and by a device worker going idle. Counted as the process's
// threads in /proc/self/task (Linux), since the runtime reports no team sizes. GNU runtime only
// (the R package's build; tests/testthat/test-threads.R covers it there too).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "ndbuf/memory/device_queue.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

int process_threads() {
  int count = 0;
  std::error_code error;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", error);
       !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    ++count;
  }
  return count;
}

// Polls (the runtime's threads exit shortly after they are released) until the process has
// `expected` threads or two seconds have passed; returns the last count.
int settle_at(int expected) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  int count = process_threads();
  while (count != expected && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    count = process_threads();
  }
  return count;
}

// The count once it has stayed the same for 50 ms (the worker's team exits when it goes idle).
int steady_count() {
  int count = process_threads(), same = 0;
  for (int i = 0; i < 400 && same < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int now = process_threads();
    same = now == count ? same + 1 : 0;
    count = now;
  }
  return count;
}

void run_two_thread_region() { ASSERT_EQ(start_thread_team(2), 2); }

class ThreadTeam : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef _OPENMP
    GTEST_SKIP() << "built without OpenMP: no teams";
#endif
    if (process_threads() == 0) GTEST_SKIP() << "no /proc/self/task to count threads in";
    // LLVM's runtime (clang's -fopenmp) shares one pool among all threads and keeps its
    // threads, asleep, through a pause; the GNU runtime's per-thread teams are what end here.
    if (dlsym(RTLD_DEFAULT, "kmp_set_blocktime") != nullptr) {
      GTEST_SKIP() << "LLVM's OpenMP runtime keeps paused threads";
    }
    // The device's worker exists and is idle, with no team, before each count starts.
    Device cpu;
    enqueue_on(cpu, [] {});
    drain_queues();
    release_thread_team();
    baseline_ = steady_count();
  }
  int baseline_ = 0;
};

TEST_F(ThreadTeam, ReleasingEndsTheCallersTeam) {
  run_two_thread_region();
  EXPECT_EQ(process_threads(), baseline_ + 1);
  release_thread_team();
  EXPECT_EQ(settle_at(baseline_), baseline_);
  run_two_thread_region();  // a later region builds a new team
  EXPECT_EQ(process_threads(), baseline_ + 1);
  release_thread_team();
  EXPECT_EQ(settle_at(baseline_), baseline_);
}

TEST_F(ThreadTeam, QueueingAJobReleasesTheCallersTeam) {
  run_two_thread_region();
  ASSERT_EQ(process_threads(), baseline_ + 1);
  Device cpu;
  enqueue_on(cpu, [] {});
  drain_queues();
  EXPECT_EQ(settle_at(baseline_), baseline_);
}

TEST_F(ThreadTeam, AnIdleWorkerReleasesItsTeam) {
  Device cpu;
  std::atomic<bool> ran{false};
  enqueue_on(cpu, [&] {
    run_two_thread_region();
    ran.store(true);
  });
  drain_queues();
  ASSERT_TRUE(ran.load());
  // The worker polls its queue for a while, then releases its team before it sleeps.
  EXPECT_EQ(settle_at(baseline_), baseline_);
}

}  // namespace
}  // namespace ndbuf
