// Asynchronous execution: each device has a queue whose worker thread runs the jobs enqueued on
// it, one at a time, in order; a job's results are a PendingTensors that readers wait on. A
// job that fails stores its error, which every wait on its results rethrows. The waiting thread
// alone polls for a user interrupt (interrupt_pending()), which cancels the running job (its
// loops see the cancel flag through a CancelScope) and every job still queued. A fork()
// waits for the queues to empty first, so a child inherits no work in flight, and its first
// job starts a fresh worker.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// The results of one job: ready once it has run, or failed with its error.
class PendingTensors {
 public:
  // `poll_first`: whether a waiter polls before it sleeps (below). Pass false for a run that
  // keeps every processor busy, from which a polling waiter would take one.
  explicit PendingTensors(bool poll_first = true) : poll_first_(poll_first) {}
  bool ready() const;
  // Waits until the job has run, polling interrupt_pending() every 20 ms on the waiting thread
  // (an interrupt cancels the queues' work and throws Error(kInterrupted)); then returns the
  // results or rethrows the job's error. Unless told otherwise it polls for a short while
  // before it sleeps: waking a sleeping thread costs tens of microseconds, more than many runs
  // take.
  const std::vector<Tensor>& wait() const;
  // wait(), then result `index` moved out: each result is taken once, by its one reader, so
  // that nothing else holds its memory (a donated result can then be written in place).
  Tensor take(size_t index);
  // Every result, moved out, when the job has already run and succeeded (a run that
  // execute_async() made on the calling thread); nullopt when it has not run yet or failed (then
  // the waits rethrow its error). Never waits.
  std::optional<std::vector<Tensor>> take_all_if_fulfilled();
  // For the job: its results, or its error (exactly one of them, once).
  void fulfil(std::vector<Tensor> results);
  void fail(std::exception_ptr error);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable done_;
  std::atomic<bool> ready_{false};  // set under mutex_, read without it by a polling waiter
  const bool poll_first_;
  std::vector<Tensor> results_;
  std::exception_ptr error_;
};

// Runs `job` on `device`'s worker thread after every job enqueued there before it. The job
// must not call into the embedding runtime (R), and must report its outcome itself (a
// PendingTensors); an exception it lets escape is dropped.
void enqueue_on(const Device& device, std::function<void()> job);
// Waits until every queue has run all its jobs (no interrupt polling: for fork and tests).
void drain_queues();
// Jobs enqueued and not yet finished, over all queues (memory in flight is theirs).
int64_t jobs_in_flight();
// Cancels every job enqueued so far: the running ones (their loops stop at their next poll)
// and the queued ones (each runs with its cancel flag set, so it fails at once as interrupted).
// Jobs enqueued afterwards run as usual.
void cancel_queued_work();
// Cancels every job enqueued so far and waits until none is left running: what must happen
// before the process tears down the libraries the jobs call (BLAS, oneDNN, this one's statics),
// or before this library is unloaded. The first worker registers it with atexit(); an
// embedding runtime whose exit runs code of its own first (R's exit finalizers) calls it there.
void stop_queued_work();

}  // namespace ndbuf
