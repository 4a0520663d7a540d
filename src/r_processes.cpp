// Bindings of many-device runs: the process grid a program declares, and running every process
// of it at once (pjrt_execute_sharded()).
#include <cpp11.hpp>
#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "r_layout_copy.h"
#include "r_program.h"
#include "r_tensor.h"

namespace {

const ndbuf::program::Executable& live_executable(SEXP x) {
  const auto executable = pjrt::find_executable(x);
  if (executable == nullptr) {
    ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, "Expected a live PJRTLoadedExecutable.");
  }
  return *executable;
}

}  // namespace

// c(replicas, partitions) of the program's module.
[[cpp11::register]] SEXP ffi_executable_grid(SEXP executable) {
  return pjrt::call_core([&]() -> cpp11::integers {
    const auto& program = live_executable(executable);
    return cpp11::writable::integers(
        {ndbuf::program::num_replicas(program), ndbuf::program::num_partitions(program)});
  });
}

// `lists`: one list of PJRTBuffers per process (checked in R); `devices`: one spec each.
// Returns one list of result buffers per process.
[[cpp11::register]] SEXP ffi_program_execute_processes(SEXP executable, cpp11::list lists,
                                                       cpp11::strings devices, double timeout_ms) {
  return pjrt::call_core([&]() -> SEXP {
    const auto& program = live_executable(executable);
    const pjrt::MappedReadCheck reads;
    std::vector<ndbuf::Device> on;
    for (const auto& spec : devices) on.push_back(ndbuf::resolve_device(std::string(spec)));
    std::vector<std::vector<ndbuf::Tensor>> inputs;
    for (R_xlen_t p = 0; p < lists.size(); ++p) {
      const SEXP buffers = lists[p];
      std::vector<ndbuf::Tensor>& list = inputs.emplace_back();
      for (R_xlen_t k = 0; k < Rf_xlength(buffers); ++k) {
        list.push_back(pjrt::argument_tensor(VECTOR_ELT(buffers, k), false));
      }
    }
    std::vector<std::vector<ndbuf::Tensor>> results = ndbuf::program::execute_processes(
        program, std::move(inputs), on, static_cast<int64_t>(timeout_ms));
    reads.done();
    cpp11::writable::list out(static_cast<R_xlen_t>(results.size()));
    for (size_t p = 0; p < results.size(); ++p) {
      out[static_cast<R_xlen_t>(p)] = pjrt::wrap_buffers(std::move(results[p]));
    }
    return out;
  });
}

namespace {

cpp11::list distributed_list(const ndbuf::program::DistributedInfo& info) {
  using cpp11::literals::operator""_nm;
  cpp11::writable::integers devices(static_cast<R_xlen_t>(info.devices.size()));
  for (size_t r = 0; r < info.devices.size(); ++r) {
    devices[static_cast<R_xlen_t>(r)] = info.devices[r];
  }
  return cpp11::writable::list({"active"_nm = info.active, "rank"_nm = info.rank,
                                "size"_nm = info.size, "devices"_nm = devices,
                                "first_process"_nm = info.first_process,
                                "mpi"_nm = info.mpi_built_in});
}

}  // namespace

// Joins this process's ranks over MPI with `local_devices` devices here (pjrt_distributed_init()).
[[cpp11::register]] SEXP ffi_distributed_init(int local_devices, double timeout_ms) {
  return pjrt::call_core([&]() -> SEXP {
    return distributed_list(
        ndbuf::program::init_distributed(local_devices, static_cast<int64_t>(timeout_ms)));
  });
}

[[cpp11::register]] SEXP ffi_distributed_info() {
  return pjrt::call_core(
      [&]() -> SEXP { return distributed_list(ndbuf::program::distributed_info()); });
}

// Finalises MPI where pjrt initialised it (R's exit).
[[cpp11::register]] void ffi_distributed_end() { ndbuf::program::end_distributed(); }
