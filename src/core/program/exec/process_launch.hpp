// Runs the processes of a many-device run (StableHLO's process grid): one thread per process,
// each with its own interpreter, device and share of the cores, meeting at collectives through
// one Rendezvous. The calling thread waits, and alone polls for a user interrupt, which cancels
// every process. Used by execute_processes() and by the test dialect's interpreter.run_parallel.
#pragma once

#include <chrono>
#include <vector>

#include "program/exec/plan.hpp"
#include "program/ir/value.hpp"
#include "program/spmd/process_grid.hpp"
#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {

// What process k (flat, replica-major) runs.
struct ProcessRun {
  const FunctionPlan* function = nullptr;
  Values args;
  Device device;
};

// The collective timeout when the caller gives none: the environment variable
// PJRT_COLLECTIVE_TIMEOUT (seconds, may be fractional), else 60 s.
std::chrono::milliseconds default_collective_timeout();

// Runs every process to its end and returns each one's results, in process order. When one
// fails, its peers' collectives fail too (they would wait for it); the error thrown is the
// first failure's, its message prefixed with the process ("process (1, 0): ..."), of its kind.
// With a spread over ranks, `runs` are this rank's processes only (from spread.first[rank]).
std::vector<Values> launch_processes(const Plan& plan, const ProcessGrid& grid,
                                     std::vector<ProcessRun> runs,
                                     std::chrono::milliseconds timeout, RankSpread spread = {});

}  // namespace ndbuf::program
