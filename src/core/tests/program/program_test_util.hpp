// Compiling and running small programs in the program runtime's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program::testing {

// Runs @main of `text` on `inputs`.
inline std::vector<Tensor> run(const std::string& text, const std::vector<Tensor>& inputs = {}) {
  return execute(*compile(text), inputs);
}

// The message of the error compiling `text` throws ("" when it compiles).
inline std::string compile_error(const std::string& text) {
  try {
    compile(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::string run_error(const std::string& text, const std::vector<Tensor>& inputs = {}) {
  try {
    run(text, inputs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace ndbuf::program::testing
