// Runs on the device queues (execute_async() of ndbuf/program.hpp).
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
  if (inputs.size() != e->signature.inputs.size()) {
    fail(ErrorKind::kInvalidArgument, "@main takes " + std::to_string(e->signature.inputs.size()) +
                                          " arguments but " + std::to_string(inputs.size()) +
                                          " were given");
  }
  for (size_t k = 0; k < inputs.size(); ++k) check_input(*e, k, inputs[k], e->device);
  (void)donated_arguments(*e, options);  // its errors now, not at the first wait
  options.on_donated = nullptr;
  auto pending = std::make_shared<PendingTensors>();
  const Device device = e->device;
  enqueue_on(device, [e = std::move(e), inputs = std::move(inputs), options = std::move(options),
                      pending]() mutable {
    try {
      check_interrupt();  // work queued before the user interrupted does not start
      pending->fulfil(execute(*e, std::move(inputs), options));
    } catch (...) {
      pending->fail(std::current_exception());
    }
  });
  return pending;
}

}  // namespace ndbuf::program
