// The compiled program behind ndbuf::program::Executable, shared by the files that run it
// (compile.cpp: one device; execute_processes.cpp: a process grid).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "ndbuf/memory/storage_pool.hpp"
#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "program/exec/kept_slot.hpp"
#include "program/spmd/process_grid.hpp"

namespace ndbuf::program {

class Executable {
 public:
  PlannedModule program;  // immutable: executions share it
  const Function* main = nullptr;
  const FunctionPlan* main_plan = nullptr;
  Signature signature;
  Device device;
  std::vector<bool> loop_read_args;  // per argument: copied to loop_layout() (loop_layout.hpp)
  std::vector<bool> row_major_args;  // per argument: read faster dense row-major
  ProcessGrid grid;                  // mhlo.num_replicas x mhlo.num_partitions (1 x 1 if absent)
  bool calls_out = false;            // has a custom_call anywhere (calls_out())
  bool loops = false;                // has a while anywhere: its runs may take any time
  uint64_t fingerprint = 0;          // of the program text and grid: the same on every rank
  mutable std::atomic<bool> ranks_agree{false};  // the ranks compared fingerprints
  mutable std::atomic<int64_t> last_run_ns{-1};  // how long the latest run took; -1: none yet
  // The small storages of one run's intermediates, free again when it ends, for the next run:
  // a steady-state execute allocates only its results (planned memory without a planner:
  // values of the same size take each other's storage once free, ExecContext::pool).
  mutable KeptSlot<StoragePool> kept_pool;
};

// Argument k of @main (0-based) against its declared type and the device it must be on; errors
// name the 1-based argument.
void check_input(const Executable& e, size_t k, const Tensor& input, const Device& device);
// @main's argument count, then each argument as check_input() does, on the executable's device.
void check_inputs(const Executable& e, const std::vector<Tensor>& inputs);
// @main's results as the caller receives them on `device`: moved out when nothing else holds
// their memory and it is dense there, else copied (result_copy_count()).
std::vector<Tensor> hand_out(Values results, const Device& device);

}  // namespace ndbuf::program
