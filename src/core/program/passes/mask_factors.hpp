// Factor masks folded into the factor: JAX's Cholesky (jnp.linalg.cholesky, and programs
// written after it) zeroes the triangle the factor does not use with
//   select(compare(iota, iota), cholesky(a), zeros)
// because the op leaves that triangle unspecified. pjrt's cholesky kernel writes zeros there
// already, so the select only copies the factor: a full pass over the matrix, reading it
// transposed when the factor was computed in LAPACK's column-major layout (an R matrix). This
// pass makes the cholesky op produce the select's result itself, marked kMaskedFactorAttr
// (ir/pass_attrs.hpp), under which a failed factorisation also gives what the select gave (NaN
// in the factor's triangle, zeros in the other) instead of a matrix of NaNs. Exact: every
// result keeps its bits.
//
// Recognised: a select whose operands are a comparison that keeps exactly the factor's
// triangle (row >= column for lower = true, row <= column otherwise, as GE or LE of two integer
// iotas over the last two dimensions, either way round), the result of a cholesky that only
// this select reads, and zeros (a broadcast scalar constant or a splat constant, every byte 0).
#pragma once

#include "program/ir/module.hpp"
#include "program/ir/pass_attrs.hpp"

namespace ndbuf::program {

// Rewrites every function of `module` in place and returns how many masks it folded. The
// module must have passed verify_module(); it still does afterwards. Run canonicalise() after
// it: the mask's iotas, comparison and zeros are then dead.
int mask_factors(Module& module);

}  // namespace ndbuf::program
