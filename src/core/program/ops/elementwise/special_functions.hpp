// The special functions of chlo.bessel_i1e, chlo.zeta, chlo.polygamma and chlo.next_after for
// 16-bit floats, in double precision (the float types compute through them).
#pragma once

#include <cstdint>

namespace ndbuf::program::detail {

// exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order one (odd in x).
double bessel_i1e(double x);
// The Hurwitz zeta function sum_{k >= 0} (q + k)^-x, with XLA's values off its domain: NaN for
// x < 1, Inf at x = 1, NaN for q <= 0 with x not an integer, and at the poles q = 0, -1, ...
// Inf for even x and NaN otherwise.
double hurwitz_zeta(double x, double q);
// The n-th derivative of digamma at x for a whole n >= 0 (digamma itself for n = 0); NaN for
// any other n.
double polygamma(double n, double x);
// The next f16 (`bfloat` false) or bf16 value after x in the direction of y, both given as
// exactly representable doubles: y when they are equal, NaN when either is.
double next_after_16(double x, double y, bool bfloat);

}  // namespace ndbuf::program::detail
