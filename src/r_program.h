// What other bindings use of r_program.cpp: the executable behind a PJRTLoadedExecutable and
// the one routine that runs a program on PJRTBuffers (pjrt_execute() and dispatch() share it).
#pragma once

#include <cpp11.hpp>
#include <memory>
#include <vector>

#include "ndbuf/program/program.hpp"

namespace pjrt {

// The executable behind a live PJRTLoadedExecutable, or nullptr for anything else.
std::shared_ptr<const ndbuf::program::Executable> find_executable(SEXP x);

// Runs @main on `buffers` (a list of live PJRTBuffers, one per argument); `donate` (one flag
// per argument) names the inputs given up to their results, released once the run succeeded.
// A list of the results, on the executable's device.
SEXP execute_program(const ndbuf::program::Executable& program, SEXP buffers,
                     const std::vector<bool>& donate);

}  // namespace pjrt
