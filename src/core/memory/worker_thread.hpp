// Threads ndbuf starts itself (device queues, the processes of a many-device run) run whole
// programs, whose nested regions take stack: they get kWorkerStackBytes of stack whatever the
// platform's default for new threads (2 MiB where `ulimit -s` is unlimited), twice R's main
// thread's usual 8 MiB.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace ndbuf {

inline constexpr size_t kWorkerStackBytes = size_t{16} << 20;

class WorkerThread {
 public:
  // Starts `body` on a new thread; throws std::system_error when the thread cannot start.
  explicit WorkerThread(std::function<void()> body);
  // Starts `start(argument)` on a new thread, allocating nothing for it: for threads that live
  // as long as the process, whose memory a fork() child (where the thread does not exist) would
  // otherwise hold unreachable.
  WorkerThread(void* (*start)(void*), void* argument);
  WorkerThread(WorkerThread&& other) noexcept;
  WorkerThread& operator=(WorkerThread&&) = delete;
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;
  // A thread neither joined nor detached is detached.
  ~WorkerThread();

  void join();
  void detach();

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

}  // namespace ndbuf
