// The threads of a many-device run (process_launch.hpp).
#include "program/exec/process_launch.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "memory/worker_thread.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/exec/interpreter.hpp"
#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {
namespace {

constexpr std::chrono::milliseconds kInterruptPoll{20};

// What the processes report to the waiting thread.
struct Outcome {
  std::mutex mutex;
  std::condition_variable finished;
  int running = 0;
  int first_failed = -1;
  std::vector<std::exception_ptr> errors;
  std::vector<Values> results;
};

std::string failure_text(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

[[noreturn]] void rethrow_for(const ProcessGrid& grid, int process, std::exception_ptr error) {
  const std::string where = "process " + grid.name(process) + ": ";
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInterrupted) throw;
    throw Error(e.kind(), where + e.what());
  }
}

// Process `first + index` of the grid, the index-th of this rank's.
void run_one(const Plan& plan, Rendezvous& rendezvous, const std::atomic<bool>& cancelled,
             int threads, int first, int index, ProcessRun run, Outcome& outcome) {
  const int process = first + index;
  block_async_signals();
  std::exception_ptr error;
  Values results;
  try {
    Interpreter interpreter(plan, run.device);
    ExecContext& context = interpreter.context();
    context.rendezvous = &rendezvous;
    context.process = process;
    context.threads = threads;  // this process's share of the cores
    context.cancelled = &cancelled;
    const ContextScopes scopes(context);
    results = interpreter.call(*run.function, std::move(run.args));
  } catch (...) {
    error = std::current_exception();
  }
  if (error) {
    {
      // Recorded before the peers learn of it: their own errors then come second.
      std::lock_guard<std::mutex> lock(outcome.mutex);
      outcome.errors[static_cast<size_t>(index)] = error;
      if (outcome.first_failed < 0) outcome.first_failed = index;
    }
    rendezvous.abandon(process, failure_text(error));
  }
  std::lock_guard<std::mutex> lock(outcome.mutex);
  if (!error) outcome.results[static_cast<size_t>(index)] = std::move(results);
  --outcome.running;
  outcome.finished.notify_all();
}

// Waits for every process; a user interrupt meanwhile sets `cancelled`.
void wait_for_all(Outcome& outcome, std::atomic<bool>& cancelled) {
  std::unique_lock<std::mutex> lock(outcome.mutex);
  while (outcome.running > 0) {
    outcome.finished.wait_for(lock, kInterruptPoll);
    if (!cancelled.load() && outcome.running > 0) {
      lock.unlock();
      if (interrupt_pending()) cancelled.store(true);
      lock.lock();
    }
  }
}

}  // namespace

std::chrono::milliseconds default_collective_timeout() {
  if (const char* text = std::getenv("PJRT_COLLECTIVE_TIMEOUT")) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && *end == '\0' && seconds > 0 && seconds < 1e7) {
      return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    }
  }
  return std::chrono::milliseconds(60'000);
}

std::vector<Values> launch_processes(const Plan& plan, const ProcessGrid& grid,
                                     std::vector<ProcessRun> runs,
                                     std::chrono::milliseconds timeout, RankSpread spread) {
  std::atomic<bool> cancelled{false};
  const int first =
      spread.remote != nullptr ? spread.first[static_cast<size_t>(spread.remote->rank())] : 0;
  Rendezvous rendezvous(grid, timeout, cancelled, std::move(spread));
  Outcome outcome;
  const size_t count = runs.size();
  outcome.errors.resize(count);
  outcome.results.resize(count);
  // The cores are shared out: each process's parallel loops get an equal part.
  const int threads = std::max(1, max_threads() / static_cast<int>(std::max<size_t>(1, count)));
  // The processes' threads run the work while this one waits: its OpenMP team, left spinning
  // by its last parallel loop, would take a core from them (64 MB all_reduce right after a
  // 64 MB copy_buffer(): 10.9-11.6 against 7.1-9.3 ms).
  release_thread_team();
  std::vector<WorkerThread> workers;
  workers.reserve(count);
  std::exception_ptr start_failure;
  for (size_t k = 0; k < count && !start_failure; ++k) {
    {
      std::lock_guard<std::mutex> lock(outcome.mutex);
      ++outcome.running;
    }
    try {
      workers.emplace_back([&plan, &rendezvous, &cancelled, threads, k, first,
                            run = std::move(runs[k]), &outcome]() mutable {
        run_one(plan, rendezvous, cancelled, threads, first, static_cast<int>(k), std::move(run),
                outcome);
      });
    } catch (...) {
      // No thread for this process: the ones started must still end before we leave.
      start_failure = std::current_exception();
      std::lock_guard<std::mutex> lock(outcome.mutex);
      --outcome.running;
      cancelled.store(true);
    }
  }
  wait_for_all(outcome, cancelled);
  for (WorkerThread& worker : workers) worker.join();
  if (start_failure) std::rethrow_exception(start_failure);
  if (cancelled.load()) throw_interrupted();
  if (outcome.first_failed >= 0) {
    rethrow_for(grid, first + outcome.first_failed,
                outcome.errors[static_cast<size_t>(outcome.first_failed)]);
  }
  return std::move(outcome.results);
}

}  // namespace ndbuf::program
