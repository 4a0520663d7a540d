// Checks shared by the fusion tests: run a program fused and unfused and compare the bytes,
// list the ops a planned program runs, make smooth test inputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/program/program.hpp"
#include "program/exec/compile.hpp"
#include "tests/program/kernel_tensors.hpp"
#include "tests/program/same_results.hpp"

namespace ndbuf::program::testing {

inline std::vector<Tensor> run_with(const std::string& text, const std::vector<Tensor>& inputs,
                                    bool fuse, bool fuse_reductions = true) {
  CompileOptions options;
  // The fusion passes see the program as written (canonicalisation would forward the
  // identity converts some sweeps fuse; canonicalise_test.cpp checks it on its own).
  options.canonicalise = false;
  options.fuse_elementwise = fuse;
  options.fuse_reductions = fuse_reductions;
  return execute(*compile(text, Device{}, options), inputs);
}

// Whether two results hold the same dtype, shape and bytes.
inline bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

// Runs `text` fused and unfused and expects the same shapes, dtypes and bytes.
inline std::vector<Tensor> expect_fusion_exact(const std::string& text,
                                               const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> fused = run_with(text, inputs, true);
  expect_same_results(fused, run_with(text, inputs, false), "fused and unfused runs");
  return fused;
}

// The op names of the steps @main's body runs after planning ("fusion" for a fused group, "row
// fusion" for a cluster fused through its reductions, "matvec pair" for a fused matrix-vector
// pair, "return" last, as in the program).
inline std::vector<std::string> planned_ops(const std::string& text) {
  const PlannedModule program = compile_module(text, true);
  std::vector<std::string> names;
  for (const Step& step : program.plan->find("main")->body->steps) {
    names.push_back(step.row_fused     ? "row fusion"
                    : step.fused       ? "fusion"
                    : step.matvec_pair ? "matvec pair"
                                       : step.op->name);
  }
  names.push_back("return");
  return names;
}

inline std::vector<float> ramp(int64_t n, float scale, float shift) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * scale) * 3.0f + shift;
  return v;
}

}  // namespace ndbuf::program::testing
