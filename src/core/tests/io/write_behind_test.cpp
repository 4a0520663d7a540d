// WriteBehind: runs reach the sink whole and in order, one at a time, on another thread, and
// a run's error comes back to the caller.
#include "io/write_behind.hpp"

#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ndbuf {
namespace {

TEST(WriteBehind, RunsReachTheSinkWholeAndInOrderOnAnotherThread) {
  std::string written;
  std::vector<std::thread::id> threads;
  WriteBehind behind([&](const void* data, size_t nbytes) {
    written.append(static_cast<const char*>(data), nbytes);
    threads.push_back(std::this_thread::get_id());
  });
  const std::string runs[3] = {"first ", "second ", "third"};
  for (const std::string& run : runs) behind.submit(run.data(), run.size());
  behind.drain();
  EXPECT_EQ(written, "first second third");
  ASSERT_EQ(threads.size(), 3u);
  for (const std::thread::id id : threads) EXPECT_NE(id, std::this_thread::get_id());
}

TEST(WriteBehind, SubmitReturnsWhileTheRunIsStillBeingWritten) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  WriteBehind behind([&](const void*, size_t) {
    started.set_value();
    released.wait();
  });
  const char byte = 'x';
  behind.submit(&byte, 1);  // returns although the sink is blocked
  started.get_future().wait();
  release.set_value();
  behind.drain();
}

TEST(WriteBehind, ARunsErrorIsRethrownByTheNextCallOnly) {
  int calls = 0;
  WriteBehind behind([&](const void*, size_t nbytes) {
    ++calls;
    if (nbytes == 2) throw std::runtime_error("disk full");
  });
  behind.submit("ab", 2);
  EXPECT_THROW(behind.drain(), std::runtime_error);
  behind.drain();  // reported once
  behind.submit("a", 1);
  behind.submit("ab", 2);
  EXPECT_THROW(behind.submit("a", 1), std::runtime_error);  // the failed run's error, not run
  EXPECT_EQ(calls, 3);
}

TEST(WriteBehind, DestroyingWithAFailedRunInFlightDoesNotThrow) {
  EXPECT_NO_THROW({
    WriteBehind behind([](const void*, size_t) { throw std::runtime_error("lost"); });
    behind.submit("a", 1);
  });
  WriteBehind unused([](const void*, size_t) {});  // never started: nothing to join
}

}  // namespace
}  // namespace ndbuf
