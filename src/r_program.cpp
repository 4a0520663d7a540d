// Bindings of StableHLO programs: a PJRTLoadedExecutable is an external pointer (tag and class
// "PJRTLoadedExecutable") to a heap-allocated shared_ptr of the core's immutable Executable.
#include <cpp11.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/program.hpp"
#include "r_tensor.h"

namespace {

using ExecutablePtr = std::shared_ptr<const ndbuf::program::Executable>;

const char* executable_cleared_message(SEXP) {
  return "This PJRTLoadedExecutable is no longer valid (it was saved and restored); "
         "compile the program again.";
}

const pjrt::ObjectClass kExecutable{"PJRTLoadedExecutable", "Expected a PJRTLoadedExecutable.",
                                    executable_cleared_message};

SEXP wrap_executable(ExecutablePtr executable) {
  return pjrt::wrap_object(kExecutable, std::move(executable));
}

const ndbuf::program::Executable& unwrap_executable(SEXP x) {
  return *pjrt::unwrap_object<ExecutablePtr>(x, kExecutable);
}

// The runtime may reuse a donated input's memory only when nothing else can see it: no
// other buffer or HArray view shares its storage (one owner, the buffer itself).
bool storage_is_private(const ndbuf::Tensor& tensor) { return tensor.storage().use_count() == 1; }

}  // namespace

[[cpp11::register]] SEXP ffi_program_compile(std::string text, std::string device) {
  return pjrt::call_core([&] {
    return wrap_executable(ndbuf::program::compile(text, ndbuf::resolve_device(device)));
  });
}

[[cpp11::register]] std::string ffi_executable_device(SEXP executable) {
  return pjrt::call_core(
      [&] { return ndbuf::device_spec(ndbuf::program::device(unwrap_executable(executable))); });
}

[[cpp11::register]] std::string ffi_executable_signature(SEXP executable) {
  return pjrt::call_core([&] {
    return ndbuf::program::signature_to_string(
        ndbuf::program::signature(unwrap_executable(executable)));
  });
}

// Per argument, the 0-based result it is donated to, or NA.
[[cpp11::register]] cpp11::integers ffi_executable_aliasing(SEXP executable) {
  return pjrt::call_core([&]() -> cpp11::integers {
    const auto& aliasing = ndbuf::program::signature(unwrap_executable(executable)).aliasing_output;
    cpp11::writable::integers out(static_cast<R_xlen_t>(aliasing.size()));
    for (size_t k = 0; k < aliasing.size(); ++k) {
      out[static_cast<R_xlen_t>(k)] = aliasing[k] ? *aliasing[k] : NA_INTEGER;
    }
    return out;
  });
}

namespace {

// Runs @main on `buffers`; `donate` (one flag per buffer) names the inputs given up to their
// results. Donated buffers are released once the run has succeeded, whether or not their
// memory could be reused.
cpp11::list execute_program(SEXP executable, cpp11::list buffers, cpp11::logicals donate) {
  const pjrt::MappedReadCheck reads;
  const auto& program = unwrap_executable(executable);
  const R_xlen_t count = buffers.size();
  // A buffer passed twice is read through its other argument: its memory is never reused.
  std::unordered_map<const ndbuf::Tensor*, int> uses;
  for (R_xlen_t k = 0; k < count; ++k) ++uses[&pjrt::unwrap_buffer(buffers[k])];
  std::vector<bool> reusable(static_cast<size_t>(count), false);
  for (R_xlen_t k = 0; k < count; ++k) {
    const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffers[k]);
    reusable[static_cast<size_t>(k)] =
        k < donate.size() && donate[k] == TRUE && uses[&tensor] == 1 && storage_is_private(tensor);
  }
  std::vector<ndbuf::Tensor> inputs;
  inputs.reserve(static_cast<size_t>(count));
  for (R_xlen_t k = 0; k < count; ++k) inputs.push_back(pjrt::unwrap_buffer(buffers[k]));
  std::vector<ndbuf::Tensor> results = ndbuf::program::execute(program, inputs, reusable);
  inputs.clear();
  reads.done();
  // Results belong to the executable's device. The runtime may hand back host tensors
  // labelled with the default CPU device; those are moved to the executable's device here.
  const ndbuf::Device& target = ndbuf::program::device(program);
  cpp11::writable::list out(static_cast<R_xlen_t>(results.size()));
  for (size_t k = 0; k < results.size(); ++k) {
    if (!(results[k].device() == target)) {
      results[k] = ndbuf::copy_to(results[k], target, ndbuf::Order::kRowMajor);
    }
    out[static_cast<R_xlen_t>(k)] = pjrt::wrap_buffer(std::move(results[k]));
  }
  for (R_xlen_t k = 0; k < count && k < donate.size(); ++k) {
    if (donate[k] == TRUE) pjrt::release_donated_buffer(buffers[k]);
  }
  return out;
}
}  // namespace

[[cpp11::register]] cpp11::list ffi_program_execute(SEXP executable, cpp11::list buffers,
                                                    cpp11::logicals donate) {
  return pjrt::call_core([&] { return execute_program(executable, buffers, donate); });
}
