// The built-in custom-call targets: print_tensor (print_tensor.cpp) and the LAPACK-backed
// linear algebra with upstream pjrt's conventions (linalg_targets.cpp) and jaxlib's
// (jax_lapack_targets.cpp, jax_lapack_general_targets.cpp).
#pragma once

#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/custom_call.hpp"

namespace ndbuf::program {

struct BuiltinTarget {
  std::string name;
  CustomCallTarget target;
};

std::vector<BuiltinTarget> builtin_targets();

// Each file's share of the table.
std::vector<BuiltinTarget> print_targets();
std::vector<BuiltinTarget> linalg_targets();
std::vector<BuiltinTarget> jax_lapack_targets();
std::vector<BuiltinTarget> jax_lapack_general_targets();

// Shared site checks: the counts of operands and results, and a result's type.
void expect_site_counts(const CustomCallSite& site, size_t operands, size_t results);
void expect_site_result(const CustomCallSite& site, size_t k, DType dtype, const Shape& shape);

}  // namespace ndbuf::program
