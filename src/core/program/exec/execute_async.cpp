// Runs on the device queues, or on the calling thread when that is cheaper (execute_async()
// of ndbuf/program.hpp).
#include <algorithm>
#include <atomic>
#include <exception>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/executable.hpp"

namespace ndbuf::program {
namespace {

std::atomic<int64_t> g_quick_run_ns{50'000};

// Queued runs that have not reported yet, on any device: a run takes the calling thread only
// while there is none, so it never overtakes one. A queued run counts itself out just before
// it reports (not when its worker is done with it), since its reader may start the next run as
// soon as it has the results.
std::atomic<int64_t> g_queued_runs{0};

// Runs `e` and reports to `pending`; a queued run counts itself out first.
void run_reporting(const Executable& e, std::vector<Tensor> inputs, const ExecuteOptions& options,
                   PendingTensors& pending, bool queued) {
  std::vector<Tensor> results;
  std::exception_ptr error;
  try {
    check_interrupt();  // work queued before the user interrupted does not start
    results = execute(e, std::move(inputs), options);
  } catch (...) {
    error = std::current_exception();
  }
  if (queued) g_queued_runs.fetch_sub(1, std::memory_order_acq_rel);
  if (error) {
    pending.fail(error);
  } else {
    pending.fulfil(std::move(results));
  }
}

}  // namespace

bool calls_out(const Executable& executable) { return executable.calls_out; }

int64_t set_quick_run_ns(int64_t ns) { return g_quick_run_ns.exchange(ns); }

bool runs_on_calling_thread(const Executable& e) {
  const int64_t last = e.last_run_ns.load(std::memory_order_relaxed);
  return !e.loops && last >= 0 && last < g_quick_run_ns.load(std::memory_order_relaxed) &&
         g_queued_runs.load(std::memory_order_acquire) == 0;
}

std::shared_ptr<PendingTensors> execute_async(std::shared_ptr<const Executable> e,
                                              std::vector<Tensor> inputs, ExecuteOptions options) {
  if (e->grid.size() > 1 || e->calls_out) {
    fail(ErrorKind::kInvalidArgument,
         "this program cannot run asynchronously (it runs on several devices or calls out)");
  }
  check_inputs(*e, inputs);
  // The caller gives up its donated arguments now, before the run may start: the run then
  // holds their memory alone and can write its results there.
  const std::vector<bool> donated = donated_arguments(*e, options);
  for (size_t k = 0; k < donated.size(); ++k) {
    if (donated[k] && options.on_donated) options.on_donated(k);
  }
  options.on_donated = nullptr;
  // The caller's thread count (it may come from a setting only that thread reads).
  const int threads = max_threads();
  options.threads = threads;
  // A reader polls for the results only where the run leaves it a processor.
  auto pending = std::make_shared<PendingTensors>(threads < usable_processors());
  if (runs_on_calling_thread(*e)) {
    run_reporting(*e, std::move(inputs), options, *pending, false);
    return pending;
  }
  const Device device = e->device;
  g_queued_runs.fetch_add(1, std::memory_order_acq_rel);
  try {
    enqueue_on(device, [e = std::move(e), inputs = std::move(inputs), options = std::move(options),
                        pending]() mutable {
      run_reporting(*e, std::move(inputs), options, *pending, true);
    });
  } catch (...) {
    g_queued_runs.fetch_sub(1, std::memory_order_acq_rel);
    throw;
  }
  return pending;
}

}  // namespace ndbuf::program
