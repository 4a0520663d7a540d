// A second thread that writes one handed-off run of bytes at a time, so that the caller can
// prepare the next run (transpose a slab) while the kernel copies this one into the file.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace ndbuf {

class WriteBehind {
 public:
  using Sink = std::function<void(const void* data, size_t nbytes)>;
  explicit WriteBehind(Sink sink) : sink_(std::move(sink)) {}
  // Waits for the run in flight (its error, if any, is dropped: the write is being abandoned).
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Waits for the previous run, then has the thread write `data` (which must stay valid and
  // unchanged until the next submit() or drain() returns). Rethrows the previous run's error.
  void submit(const void* data, size_t nbytes);
  // Waits until nothing is in flight; rethrows the error of the last run, if it failed.
  void drain();

 private:
  void run();

  Sink sink_;
  std::mutex mutex_;
  std::condition_variable changed_;
  const void* data_ = nullptr;
  size_t nbytes_ = 0;
  bool pending_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // started by the first submit()
};

}  // namespace ndbuf
