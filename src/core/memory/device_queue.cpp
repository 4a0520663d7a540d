// Per-device execution queues and pending results (device_queue.hpp).
#include "ndbuf/memory/device_queue.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <map>
#include <thread>

#include "memory/worker_thread.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

constexpr std::chrono::milliseconds kInterruptPoll{20};
// How long a thread that waits for a result, or a worker whose queue has emptied, polls before
// it sleeps on a condition variable. Waking a sleeping thread took 50-60 us on the machines
// measured, so without polling a result read right away, or a run queued right after the last
// one, paid that once or twice per run. Polling yields the core to any thread that can use it.
constexpr std::chrono::microseconds kReaderPoll{500};
constexpr std::chrono::microseconds kWorkerPoll{200};
// How long an idle worker keeps its OpenMP team before it ends it (release_thread_team()): a
// loop of queued runs whose R code between runs outlasts the poll (a reader woken from sleep,
// bench::mark's bookkeeping) would otherwise start a team per run, and a 2-thread FFT of
// 256 x 4096 ran at one thread's speed (4.0 against 2.4 ms).
constexpr std::chrono::milliseconds kWorkerTeamKept{20};

// Polls `done` (yielding the core between reads) until it is true or `limit` has passed.
template <typename Done>
bool poll_for(std::chrono::microseconds limit, Done done) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::yield();
  }
  return true;
}

// One device's queue. Its worker starts with the first job and lives until the process ends
// (detached: an exiting process does not join it, but stops its jobs first, enqueue_on()).
struct Queue {
  struct Job {
    int64_t id;
    std::function<void()> run;
  };
  std::deque<Job> jobs;
  std::atomic<size_t> job_count{0};  // jobs.size(), for the worker to poll without the lock
  bool worker_running = false;
  // The running job's cancel flag, which its loops read through a CancelScope.
  std::atomic<bool> cancel_running{false};
};

struct Queues {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::pair<int, int>, Queue> by_device;
  int64_t in_flight = 0;
  int64_t next_id = 0;
  // cancel_queued_work() cancels the jobs enqueued before it: those with a smaller id. Jobs
  // enqueued afterwards run as usual.
  int64_t cancel_below = 0;
};

Queues& queues() {
  static Queues* all = new Queues();  // never destroyed: workers may outlive static destructors
  return *all;
}

void work(Queue* queue) {
  block_async_signals();
  Queues& all = queues();
  const CancelScope cancel(queue->cancel_running);
  std::unique_lock<std::mutex> lock(all.mutex);
  for (;;) {
    if (queue->jobs.empty()) {
      lock.unlock();
      poll_for(kWorkerPoll, [&] { return queue->job_count.load(std::memory_order_acquire) > 0; });
      lock.lock();
      // Idle for a while: the next runs may be R's, on its own thread's team.
      if (!all.changed.wait_for(lock, kWorkerTeamKept, [&] { return !queue->jobs.empty(); })) {
        lock.unlock();
        release_thread_team();
        lock.lock();
      }
    }
    all.changed.wait(lock, [&] { return !queue->jobs.empty(); });
    Queue::Job job = std::move(queue->jobs.front());
    queue->jobs.pop_front();
    queue->job_count.store(queue->jobs.size(), std::memory_order_release);
    queue->cancel_running.store(job.id < all.cancel_below);
    lock.unlock();
    try {
      job.run();
    } catch (...) {
      // The job reports its own outcome; nothing may escape a worker.
    }
    job.run = nullptr;
    lock.lock();
    --all.in_flight;
    all.changed.notify_all();
  }
}

void* start_work(void* queue) {
  work(static_cast<Queue*>(queue));
  return nullptr;
}

// Before fork(): the child must inherit no job in flight (its workers do not exist there).
void before_fork() { drain_queues(); }

// In the child: no worker runs; the next job on each queue starts one.
void in_child() {
  Queues& all = queues();
  new (&all.mutex) std::mutex();
  new (&all.changed) std::condition_variable();
  for (auto& [device, queue] : all.by_device) {
    queue.worker_running = false;
    queue.jobs.clear();
    queue.job_count.store(0);
    queue.cancel_running.store(false);
  }
  all.in_flight = 0;
}

const int g_fork_handlers = ::pthread_atfork(&before_fork, nullptr, &in_child);

}  // namespace

bool PendingTensors::ready() const { return ready_.load(std::memory_order_acquire); }

const std::vector<Tensor>& PendingTensors::wait() const {
  if (poll_first_) {
    poll_for(kReaderPoll, [&] { return ready(); });
  }
  std::unique_lock<std::mutex> lock(mutex_);
  while (!ready_) {
    done_.wait_for(lock, kInterruptPoll);
    if (ready_) break;
    lock.unlock();
    if (interrupt_pending()) {
      cancel_queued_work();
      throw_interrupted();
    }
    lock.lock();
  }
  if (error_) std::rethrow_exception(error_);
  return results_;
}

Tensor PendingTensors::take(size_t index) {
  wait();
  std::lock_guard<std::mutex> lock(mutex_);
  if (index >= results_.size()) {
    ndbuf::fail(ErrorKind::kInvalidArgument, "no such result of the run");
  }
  return std::move(results_[index]);
}

std::optional<std::vector<Tensor>> PendingTensors::take_all_if_fulfilled() {
  if (!ready()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_) return std::nullopt;
  return std::move(results_);
}

void PendingTensors::fulfil(std::vector<Tensor> results) {
  std::lock_guard<std::mutex> lock(mutex_);
  results_ = std::move(results);
  ready_.store(true, std::memory_order_release);
  done_.notify_all();
}

void PendingTensors::fail(std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  error_ = std::move(error);
  ready_.store(true, std::memory_order_release);
  done_.notify_all();
}

void enqueue_on(const Device& device, std::function<void()> job) {
  (void)g_fork_handlers;
  release_thread_team();  // the worker's team runs the job; ours would stop its threads spinning
  Queues& all = queues();
  std::lock_guard<std::mutex> lock(all.mutex);
  Queue& queue = all.by_device[{static_cast<int>(device.platform), device.index}];
  queue.jobs.push_back({all.next_id++, std::move(job)});
  queue.job_count.store(queue.jobs.size(), std::memory_order_release);
  ++all.in_flight;
  if (!queue.worker_running) {
    // A process that exits with jobs queued (a script whose last results nobody reads) must
    // not tear down the libraries they call while a worker still runs one: exit() runs the
    // handlers registered with atexit() before any library's destructors.
    static const bool stops_at_exit = std::atexit(&stop_queued_work) == 0;
    (void)stops_at_exit;
    try {
      WorkerThread(&start_work, &queue).detach();
    } catch (...) {
      queue.jobs.pop_back();
      queue.job_count.store(queue.jobs.size(), std::memory_order_release);
      --all.in_flight;
      throw;
    }
    queue.worker_running = true;
  }
  all.changed.notify_all();
}

void drain_queues() {
  Queues& all = queues();
  std::unique_lock<std::mutex> lock(all.mutex);
  all.changed.wait(lock, [&] { return all.in_flight == 0; });
}

int64_t jobs_in_flight() {
  Queues& all = queues();
  std::lock_guard<std::mutex> lock(all.mutex);
  return all.in_flight;
}

void cancel_queued_work() {
  Queues& all = queues();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.cancel_below = all.next_id;
  for (auto& [device, queue] : all.by_device) queue.cancel_running.store(true);
}

void stop_queued_work() {
  cancel_queued_work();
  drain_queues();
}

}  // namespace ndbuf
