// The hand-off is one slot guarded by a mutex: the caller never gets more than one run ahead,
// which is all the overlap a transpose-then-write loop can use.
#include "io/write_behind.hpp"

namespace ndbuf {

WriteBehind::~WriteBehind() {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !pending_; });
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void WriteBehind::submit(const void* data, size_t nbytes) {
  drain();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    data_ = data;
    nbytes_ = nbytes;
    pending_ = true;
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  changed_.notify_all();
}

void WriteBehind::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !pending_; });
  if (error_) {
    const std::exception_ptr error = error_;
    error_ = nullptr;
    std::rethrow_exception(error);
  }
}

void WriteBehind::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return pending_ || stopping_; });
    if (!pending_) return;  // stopping
    const void* data = data_;
    const size_t nbytes = nbytes_;
    lock.unlock();
    std::exception_ptr error;
    try {
      sink_(data, nbytes);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    pending_ = false;
    changed_.notify_all();
  }
}

}  // namespace ndbuf
