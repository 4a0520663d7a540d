// Runs on the device queues (execute_async() of ndbuf/program.hpp).
#include <algorithm>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/executable.hpp"

namespace ndbuf::program {

bool calls_out(const Executable& executable) { return executable.calls_out; }

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
  auto pending = std::make_shared<PendingTensors>();
  const Device device = e->device;
  enqueue_on(device, [e = std::move(e), inputs = std::move(inputs), options = std::move(options),
                      pending, threads]() mutable {
    try {
      check_interrupt();  // work queued before the user interrupted does not start
      const ThreadReservation share(std::max(0, max_threads() - threads));
      pending->fulfil(execute(*e, std::move(inputs), options));
    } catch (...) {
      pending->fail(std::current_exception());
    }
  });
  return pending;
}

}  // namespace ndbuf::program
