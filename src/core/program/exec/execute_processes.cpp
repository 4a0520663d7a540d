// Runs of a program's whole process grid (execute_processes() of ndbuf/program.hpp).
#include <algorithm>
#include <set>

#include "program/exec/distributed.hpp"
#include "program/exec/executable.hpp"
#include "program/exec/loop_layout.hpp"
#include "program/exec/process_launch.hpp"

namespace ndbuf::program {
namespace {

// How many of the grid's processes run here: all of them, or this rank's share.
size_t local_processes(const Executable& e, const RankSpread& spread) {
  if (spread.remote == nullptr) return static_cast<size_t>(e.grid.size());
  const auto rank = static_cast<size_t>(spread.remote->rank());
  return static_cast<size_t>(spread.first[rank + 1] - spread.first[rank]);
}

void check_devices(const Executable& e, const RankSpread& spread,
                   const std::vector<Device>& devices) {
  if (devices.size() != local_processes(e, spread)) {
    fail(ErrorKind::kInvalidArgument,
         "the program runs on " + std::to_string(e.grid.size()) + " device" +
             (e.grid.size() == 1 ? "" : "s") + " (" + std::to_string(e.grid.replicas) +
             " replica(s) x " + std::to_string(e.grid.partitions) + " partition(s))" +
             (spread.remote != nullptr
                  ? ", " + std::to_string(local_processes(e, spread)) + " of them in this rank"
                  : std::string()) +
             ", but " + std::to_string(devices.size()) + " were given");
  }
  std::set<std::pair<int, int>> seen;
  for (const Device& device : devices) {
    if (!is_host(device)) {
      fail(ErrorKind::kDevice,
           "programs run only on CPU devices in this version, not on " + device_spec(device));
    }
    if (!seen.insert({static_cast<int>(device.platform), device.index}).second) {
      fail(ErrorKind::kInvalidArgument,
           "device " + device_spec(device) + " is given for two processes; each needs its own");
    }
  }
}

}  // namespace

int num_replicas(const Executable& executable) { return executable.grid.replicas; }
int num_partitions(const Executable& executable) { return executable.grid.partitions; }

std::vector<std::vector<Tensor>> execute_processes(const Executable& e,
                                                   std::vector<std::vector<Tensor>> inputs,
                                                   const std::vector<Device>& devices,
                                                   int64_t collective_timeout_ms) {
  const RankSpread spread = distributed_spread(e.grid.size());
  check_devices(e, spread, devices);
  if (inputs.size() != devices.size()) {
    fail(ErrorKind::kInvalidArgument,
         "one argument list per process is needed: " + std::to_string(devices.size()) + ", not " +
             std::to_string(inputs.size()));
  }
  const int first_process =
      spread.remote != nullptr ? spread.first[static_cast<size_t>(spread.remote->rank())] : 0;
  std::vector<ProcessRun> runs(devices.size());
  for (size_t p = 0; p < devices.size(); ++p) {
    std::vector<Tensor>& list = inputs[p];
    if (list.size() != e.signature.inputs.size()) {
      fail(ErrorKind::kInvalidArgument, "@main takes " + std::to_string(e.signature.inputs.size()) +
                                            " arguments but process " +
                                            e.grid.name(first_process + static_cast<int>(p)) +
                                            " was given " + std::to_string(list.size()));
    }
    for (size_t k = 0; k < list.size(); ++k) {
      check_input(e, k, list[k], devices[p]);
      if (k < e.loop_read_args.size() && e.loop_read_args[k]) list[k] = loop_layout(list[k]);
      runs[p].args.emplace_back(std::move(list[k]));
    }
    runs[p].function = e.main_plan;
    runs[p].device = devices[p];
  }
  inputs.clear();
  const std::chrono::milliseconds timeout = collective_timeout_ms > 0
                                                ? std::chrono::milliseconds(collective_timeout_ms)
                                                : default_collective_timeout();
  if (spread.remote != nullptr && !e.ranks_agree.load()) {
    check_same_program(spread, e.fingerprint,
                       {std::chrono::steady_clock::now() + timeout, nullptr});
    e.ranks_agree.store(true);
  }
  std::vector<Values> results =
      launch_processes(*e.program.plan, e.grid, std::move(runs), timeout, spread);
  std::vector<std::vector<Tensor>> out;
  out.reserve(results.size());
  for (size_t p = 0; p < results.size(); ++p) {
    out.push_back(hand_out(std::move(results[p]), devices[p]));
  }
  return out;
}

}  // namespace ndbuf::program
