// What a run function may use besides its operands, handed to it through the interpreter
// (Interpreter::context()) rather than found in thread-locals: the seam where a second backend
// or a many-device runtime gives each concurrent execution its own device, memory, threads and
// cancel flag.
#pragma once

#include <atomic>
#include <memory>
#include <optional>

#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/storage_pool.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {

struct ExecContext {
  // The device of this execution: its results and every tensor its kernels make live there.
  Device device;
  // Memory offered to the step now running (a donated argument or a value read for the last
  // time, Interpreter::run_in_place); a fresh allocation when nothing is offered. A step's
  // kernel takes it at most once; the interpreter withdraws it when the step ends.
  ResultMemory result;
  // The storages this execution hands from one value to the next (ndbuf/memory/storage_pool.hpp):
  // execute() runs @main in a PoolScope of the pool its executable kept from the run before,
  // so a steady-state run allocates its results alone; a while loop's iterations take the
  // storages of the iteration before. Null only once execute() has handed it back.
  std::unique_ptr<StoragePool> pool = std::make_unique<StoragePool>();
  // The many-device run this execution is process `process` of (launch_processes()), where
  // its collectives meet their peers; null for a run on one device (a 1 x 1 grid, in which a
  // collective's group is the process alone).
  Rendezvous* rendezvous = nullptr;
  int process = 0;
  // The threads this execution's loops, products and primitives may use, decided by the thread
  // that asked for the run (which alone may read R's option); 0: the running thread's own
  // max_threads().
  int threads = 0;
  // The flag the thread that launched this execution sets to stop it (a user interrupt it
  // saw); null: the installed interrupt poll, which only the thread that installed it may ask.
  const std::atomic<bool>* cancelled = nullptr;
};

// While it lives, the constructing thread runs as `context` says: on its device, with its
// thread count and its cancel flag. These are the scopes the kernels below the run functions
// read (ndbuf/memory: DeviceScope, ThreadBudget, CancelScope), installed in one place from the
// context, so the context alone decides them.
class ContextScopes {
 public:
  explicit ContextScopes(const ExecContext& context) : device_(context.device) {
    if (context.threads > 0) threads_.emplace(context.threads);
    if (context.cancelled != nullptr) cancel_.emplace(*context.cancelled);
  }
  ContextScopes(const ContextScopes&) = delete;
  ContextScopes& operator=(const ContextScopes&) = delete;

 private:
  DeviceScope device_;
  std::optional<ThreadBudget> threads_;
  std::optional<CancelScope> cancel_;
};

}  // namespace ndbuf::program
