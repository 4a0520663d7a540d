// Math functions the standard library lacks: erf_inv and digamma for reals, and the complex
// forms of expm1, log1p, sign, cbrt, logistic, atan2 the spec defines.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace ndbuf::program::detail {

// Inverse error function: erf(erf_inv(x)) = x on [-1, 1]; +-Inf at +-1, NaN outside.
double erf_inv(double x);
// The digamma function (derivative of lgamma); NaN at 0 and the negative integers (XLA).
double digamma(double x);

// exp(z) - 1 without cancellation for small z: the real part is
// expm1(x) cos(y) - 2 sin^2(y / 2), which stays accurate where exp(z) is near 1.
template <class R>
std::complex<R> complex_expm1(const std::complex<R>& z) {
  const R x = z.real();
  const R y = z.imag();
  const R half_sin = std::sin(y / 2);
  const R real = std::expm1(x) * std::cos(y) - 2 * half_sin * half_sin;
  return {real, std::exp(x) * std::sin(y)};
}

// log(1 + z) without cancellation for small z: |1 + z|^2 = 1 + (x (2 + x) + y^2).
template <class R>
std::complex<R> complex_log1p(const std::complex<R>& z) {
  const R x = z.real();
  const R y = z.imag();
  const R abs_big = std::max(std::abs(x + 1), std::abs(y));
  if (abs_big > R(1e4) || !std::isfinite(abs_big)) return std::log(R(1) + z);
  const R real = std::log1p(x * (2 + x) + y * y) / 2;
  return {real, std::atan2(y, x + 1)};
}

// z / |z|; 0 for 0; (NaN, NaN) when either part is NaN (spec).
template <class R>
std::complex<R> complex_sign(const std::complex<R>& z) {
  if (std::isnan(z.real()) || std::isnan(z.imag())) {
    const R nan = std::numeric_limits<R>::quiet_NaN();
    return {nan, nan};
  }
  if (z.real() == 0 && z.imag() == 0) return {0, 0};
  return z / std::abs(z);
}

// The principal cube root: |z|^(1/3) at a third of the argument.
template <class R>
std::complex<R> complex_cbrt(const std::complex<R>& z) {
  return std::polar(std::cbrt(std::abs(z)), std::arg(z) / 3);
}

template <class R>
std::complex<R> complex_logistic(const std::complex<R>& z) {
  return R(1) / (R(1) + std::exp(-z));
}

// atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)), the analytic continuation of the real
// function that XLA and the reference interpreter use.
template <class R>
std::complex<R> complex_atan2(const std::complex<R>& y, const std::complex<R>& x) {
  const std::complex<R> i(0, 1);
  const std::complex<R> l = std::log((x + i * y) / std::sqrt(x * x + y * y));
  return {l.imag(), -l.real()};
}

}  // namespace ndbuf::program::detail
