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

// Runs @main on `buffers` (a list of live PJRTBuffers, one per argument) under `options`. The
// core decides which arguments are donated (tf.aliasing_output, less the excluded indices) and
// when their memory is taken; each donated buffer is invalidated before its memory is written
// (every later use is the error "called on deleted or donated buffer"). A list of the
// results, on the executable's device.
SEXP execute_program(const ndbuf::program::Executable& program, SEXP buffers,
                     ndbuf::program::ExecuteOptions options);

}  // namespace pjrt
