// Bindings of StableHLO programs: a PJRTLoadedExecutable is an external pointer (tag and class
// "PJRTLoadedExecutable") to a heap-allocated shared_ptr of the core's immutable Executable.
#include "r_program.h"

#include <cpp11.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/program/program.hpp"
#include "r_layout_copy.h"
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

}  // namespace

// The bytes of a program file as a raw vector. The core refuses anything but a regular file
// before opening it (a FIFO or a device could block the read), as an io error.
[[cpp11::register]] SEXP ffi_program_read_file(std::string path) {
  return pjrt::call_core([&]() -> SEXP {
    const std::shared_ptr<ndbuf::Storage> file = ndbuf::read_file(path);
    const SEXP out = pjrt::allocate_output_vector(RAWSXP, static_cast<R_xlen_t>(file->nbytes()));
    if (file->nbytes() > 0) std::memcpy(RAW(out), file->data(), file->nbytes());
    return out;
  });
}

[[cpp11::register]] SEXP ffi_program_compile(std::string text, std::string device) {
  return pjrt::call_core([&] {
    return wrap_executable(ndbuf::program::compile(text, ndbuf::resolve_device(device)));
  });
}

[[cpp11::register]] SEXP ffi_executable_device(SEXP executable) {
  return pjrt::call_core(
      [&] { return ndbuf::device_spec(ndbuf::program::device(unwrap_executable(executable))); });
}

[[cpp11::register]] SEXP ffi_executable_signature(SEXP executable) {
  return pjrt::call_core([&] {
    return ndbuf::program::signature_to_string(
        ndbuf::program::signature(unwrap_executable(executable)));
  });
}

[[cpp11::register]] SEXP ffi_executable_plan(SEXP executable) {
  return pjrt::call_core([&] { return ndbuf::program::plan_text(unwrap_executable(executable)); });
}

// Per argument, the 0-based result it is donated to, or NA.
[[cpp11::register]] SEXP ffi_executable_aliasing(SEXP executable) {
  return pjrt::call_core([&]() -> cpp11::integers {
    const auto& aliasing = ndbuf::program::signature(unwrap_executable(executable)).aliasing_output;
    cpp11::writable::integers out(static_cast<R_xlen_t>(aliasing.size()));
    for (size_t k = 0; k < aliasing.size(); ++k) {
      out[static_cast<R_xlen_t>(k)] = aliasing[k] ? *aliasing[k] : NA_INTEGER;
    }
    return out;
  });
}

namespace pjrt {

std::shared_ptr<const ndbuf::program::Executable> find_executable(SEXP x) {
  const auto* program = find_object<ExecutablePtr>(x, kExecutable);
  return program == nullptr ? nullptr : *program;
}

SEXP execute_program(const ndbuf::program::Executable& program, SEXP buffers,
                     ndbuf::program::ExecuteOptions options) {
  const pjrt::MappedReadCheck reads;
  const R_xlen_t count = Rf_xlength(buffers);
  std::vector<ndbuf::Tensor> inputs;
  inputs.reserve(static_cast<size_t>(count));
  // A donated argument is passed as it is: its memory may become a result's.
  const std::vector<bool>& by_rows = ndbuf::program::row_major_arguments(program);
  const auto& aliasing = ndbuf::program::signature(program).aliasing_output;
  for (R_xlen_t k = 0; k < count; ++k) {
    const auto index = static_cast<size_t>(k);
    const bool read_by_rows = index < by_rows.size() && by_rows[index] && !aliasing[index];
    inputs.push_back(pjrt::argument_tensor(VECTOR_ELT(buffers, k), read_by_rows));
  }
  options.on_donated = [buffers](size_t k) {
    pjrt::release_donated_buffer(VECTOR_ELT(buffers, static_cast<R_xlen_t>(k)));
  };
  std::vector<ndbuf::Tensor> results = ndbuf::program::execute(program, std::move(inputs), options);
  reads.done();
  return pjrt::wrap_buffers(std::move(results));
}

namespace {

// Runs are asynchronous, as upstream's, unless PJRT_ASYNC is 0 or false when the package loads.
bool async_from_environment() {
  const char* value = std::getenv("PJRT_ASYNC");
  return value == nullptr || !(std::strcmp(value, "0") == 0 || std::strcmp(value, "false") == 0 ||
                               std::strcmp(value, "FALSE") == 0);
}

bool g_async = async_from_environment();

// pjrt_execute() on the executable's device queue (pjrt_async()): the inputs are read now (a
// pending input is waited for), donated buffers are invalidated at once, and the results are
// buffers that wait for the run when first read.
SEXP execute_deferred(const std::shared_ptr<const ndbuf::program::Executable>& program,
                      SEXP buffers, ndbuf::program::ExecuteOptions options) {
  const R_xlen_t count = Rf_xlength(buffers);
  const std::vector<bool> donated = ndbuf::program::donated_arguments(*program, options);
  const std::vector<bool>& by_rows = ndbuf::program::row_major_arguments(*program);
  std::vector<ndbuf::Tensor> inputs;
  inputs.reserve(static_cast<size_t>(count));
  for (R_xlen_t k = 0; k < count; ++k) {
    const auto index = static_cast<size_t>(k);
    const bool donate = index < donated.size() && donated[index];
    const bool read_by_rows = index < by_rows.size() && by_rows[index] && !donate;
    inputs.push_back(pjrt::argument_tensor(VECTOR_ELT(buffers, k), read_by_rows));
  }
  const auto& outputs = ndbuf::program::signature(*program).outputs;
  // A run made here allocates its results on R's thread, which makes room as it goes.
  if (!ndbuf::program::runs_on_calling_thread(*program)) pjrt::make_room_for_results(outputs);
  options.on_donated = [buffers](size_t k) {
    pjrt::release_donated_buffer(VECTOR_ELT(buffers, static_cast<R_xlen_t>(k)));
  };
  auto pending = ndbuf::program::execute_async(program, std::move(inputs), std::move(options));
  // Results already there are plain buffers: no placeholder to make, and none to resolve.
  if (auto results = pending->take_all_if_fulfilled()) {
    return pjrt::wrap_buffers(std::move(*results));
  }
  return pjrt::wrap_pending_buffers(std::move(pending), outputs, ndbuf::program::device(*program));
}

bool runs_deferred(const ndbuf::program::Executable& program) {
  return g_async && !ndbuf::program::calls_out(program) &&
         ndbuf::program::num_replicas(program) * ndbuf::program::num_partitions(program) == 1;
}

}  // namespace

}  // namespace pjrt

// Whether pjrt_execute() ran programs asynchronously before this call; `enable` TRUE / FALSE
// sets it, NA only reads it.
[[cpp11::register]] SEXP ffi_async_execution(SEXP enable) {
  return pjrt::call_core([&]() -> SEXP {
    const bool before = pjrt::g_async;
    const int value = Rf_asLogical(enable);
    if (value != NA_LOGICAL) pjrt::g_async = value != 0;
    return Rf_ScalarLogical(before);
  });
}

// Cancels the runs still queued or running and waits for them to end: R's exit runs it (an
// exit finalizer) before it tears anything down.
[[cpp11::register]] SEXP ffi_stop_queued_work() {
  return pjrt::call_core([]() -> SEXP {
    ndbuf::stop_queued_work();
    return R_NilValue;
  });
}

// Whether a buffer's value is there (an asynchronous run's result may not be yet).
[[cpp11::register]] SEXP ffi_buffer_is_ready(SEXP buffer) {
  return pjrt::call_core([&]() -> SEXP { return Rf_ScalarLogical(pjrt::buffer_ready(buffer)); });
}

// `non_donatable`: 0-based argument indices (checked in R, and again by the core).
[[cpp11::register]] SEXP ffi_program_execute(SEXP executable, cpp11::list buffers,
                                             cpp11::integers non_donatable) {
  return pjrt::call_core([&] {
    ndbuf::program::ExecuteOptions options;
    for (const int index : non_donatable) options.non_donatable_input_indices.push_back(index);
    const auto& program = unwrap_executable(executable);
    if (pjrt::runs_deferred(program)) {
      return pjrt::execute_deferred(pjrt::find_executable(executable), buffers, std::move(options));
    }
    return pjrt::execute_program(program, buffers, std::move(options));
  });
}

namespace {

// TRUE or FALSE (not NA, not a vector of several).
bool is_flag(SEXP x) {
  return TYPEOF(x) == LGLSXP && XLENGTH(x) == 1 && LOGICAL(x)[0] != NA_LOGICAL;
}

}  // namespace

// pjrt_execute()'s common call, checked here instead of in R: a live executable, an unnamed
// list of objects of class PJRTBuffer, the default options (every argument the program marks
// as aliased is donated) and TRUE or FALSE for `simplify` and `check` (which has nothing to do
// then). The results, one alone when `simplify` asks; NULL for anything else, which the R
// layer then checks and words.
[[cpp11::register]] SEXP ffi_program_execute_common(SEXP executable, SEXP buffers,
                                                    SEXP execution_options, SEXP simplify,
                                                    SEXP check) {
  return pjrt::call_core([&]() -> SEXP {
    const auto* program = pjrt::find_object<ExecutablePtr>(executable, kExecutable);
    if (program == nullptr || TYPEOF(buffers) != VECSXP || execution_options != R_NilValue ||
        !is_flag(simplify) || !is_flag(check) ||
        Rf_getAttrib(buffers, R_NamesSymbol) != R_NilValue) {
      return R_NilValue;
    }
    for (R_xlen_t k = 0; k < Rf_xlength(buffers); ++k) {
      if (!pjrt::is_buffer(VECTOR_ELT(buffers, k))) return R_NilValue;
    }
    const SEXP results = pjrt::runs_deferred(**program)
                             ? pjrt::execute_deferred(*program, buffers, {})
                             : pjrt::execute_program(**program, buffers, {});
    const bool one = LOGICAL(simplify)[0] == TRUE && Rf_xlength(results) == 1;
    return one ? VECTOR_ELT(results, 0) : results;
  });
}

// The address of a live buffer's first element (0 for anything else) and the number of
// results the runtime has copied to hand them out: what the tests of donation and devices
// compare.
[[cpp11::register]] SEXP ffi_buffer_data_address(SEXP buffer) {
  return pjrt::call_core([&]() -> double {
    const ndbuf::Tensor* tensor = pjrt::find_buffer(buffer);
    return tensor == nullptr ? 0.0
                             : static_cast<double>(reinterpret_cast<uintptr_t>(tensor->data()));
  });
}

[[cpp11::register]] SEXP ffi_program_result_copies() {
  return pjrt::call_core([] { return static_cast<double>(ndbuf::program::result_copy_count()); });
}
