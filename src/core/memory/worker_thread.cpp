// Threads with a stack of known size (worker_thread.hpp), through pthreads.
#include "memory/worker_thread.hpp"

#include <pthread.h>

#include <cerrno>
#include <system_error>

namespace ndbuf {

struct WorkerThread::Handle {
  pthread_t thread;
  bool running = true;
};

namespace {

void* run_body(void* body) {
  std::unique_ptr<std::function<void()>> owned(static_cast<std::function<void()>*>(body));
  (*owned)();
  return nullptr;
}

// pthread_create() with a stack of kWorkerStackBytes; returns its error number.
int start_thread(pthread_t* thread, void* (*start)(void*), void* argument) {
  pthread_attr_t attr;
  int error = pthread_attr_init(&attr);
  if (error != 0) return error;
  error = pthread_attr_setstacksize(&attr, kWorkerStackBytes);
  if (error == 0) error = pthread_create(thread, &attr, start, argument);
  pthread_attr_destroy(&attr);
  return error;
}

[[noreturn]] void fail_to_start(int error) {
  throw std::system_error(error, std::generic_category(), "cannot start a thread");
}

}  // namespace

WorkerThread::WorkerThread(std::function<void()> body) : handle_(std::make_unique<Handle>()) {
  auto* owned = new std::function<void()>(std::move(body));
  const int error = start_thread(&handle_->thread, &run_body, owned);
  if (error != 0) {
    delete owned;
    fail_to_start(error);
  }
}

WorkerThread::WorkerThread(void* (*start)(void*), void* argument)
    : handle_(std::make_unique<Handle>()) {
  const int error = start_thread(&handle_->thread, start, argument);
  if (error != 0) fail_to_start(error);
}

WorkerThread::WorkerThread(WorkerThread&& other) noexcept = default;

WorkerThread::~WorkerThread() {
  if (handle_ && handle_->running) detach();
}

void WorkerThread::join() {
  if (!handle_ || !handle_->running) return;
  pthread_join(handle_->thread, nullptr);
  handle_->running = false;
}

void WorkerThread::detach() {
  if (!handle_ || !handle_->running) return;
  pthread_detach(handle_->thread);
  handle_->running = false;
}

}  // namespace ndbuf
