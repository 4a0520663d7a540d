// What the jaxlib LAPACK targets share (jax_lapack_targets.cpp, jax_lapack_general_targets.cpp):
// reading a site's matrices and LAPACK letter attributes, and naming a routine's four targets
// lapack_<t><routine>_ffi, t = s, d, c, z for f32, f64, c64, c128.
#pragma once

#include <vector>

#include "program/ops/custom_call/builtin_targets.hpp"

namespace ndbuf::program::jax_lapack {

// The batch dims [...] of a shape [..., m, n], and a batch shape with dims appended.
Shape lead_of(const Shape& s);
Shape tail(const Shape& lead, std::vector<int64_t> dims);

// Operand k's shape, after checking that it is [..., m, n] of `dtype`.
const Shape& matrix_operand(const CustomCallSite& site, size_t k, DType dtype);

// An attribute holding a letter's code (uplo = 76 for 'L'), one of `allowed`, or `fallback`
// when absent; required_letter() fails when it is absent.
char letter_attribute(const CustomCallSite& site, const char* name, const char* allowed,
                      char fallback);
char required_letter(const CustomCallSite& site, const char* name, const char* allowed);

// A new dense row-major tensor of zeros.
Tensor zeros(DType dtype, const Shape& shape);

using Binder = CustomCallKernel (*)(const CustomCallSite&, DType);

// A LAPACK routine by its real and complex names (orgqr / ungqr) and its binder.
struct Routine {
  const char* real_name;
  const char* complex_name;
  Binder bind;
};

// The four targets of each routine, each binding with its dtype.
std::vector<BuiltinTarget> lapack_targets(const Routine* routines, size_t count);

}  // namespace ndbuf::program::jax_lapack
