// erf_inv and digamma in double precision (the float types compute through them).
#include "program/ops/elementwise/elementwise_math.hpp"

#include <cmath>
#include <limits>

namespace ndbuf::program::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// A closed-form first guess within about 2e-3 of erf_inv(x) for 0 <= x < 1
// (the inverse of the approximation erf(y)^2 ~ 1 - exp(-y^2 (4/pi + a y^2) / (1 + a y^2))).
double erf_inv_guess(double x) {
  constexpr double a = 0.147;
  const double log_term = std::log1p(-x * x);
  const double b = 2 / (kPi * a) + log_term / 2;
  return std::sqrt(std::sqrt(b * b - log_term / a) - b);
}

}  // namespace

double erf_inv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1) return std::numeric_limits<double>::infinity();
  if (x == -1) return -std::numeric_limits<double>::infinity();
  if (x == 0) return x;
  const double ax = std::fabs(x);
  double y = erf_inv_guess(ax);
  // Halley steps on f(y) = erf(y) - ax (f' = 2/sqrt(pi) exp(-y^2), f'' = -2 y f'), each
  // tripling the correct digits. Near 1 the residual is taken as (1 - ax) - erfc(y): 1 - ax
  // is exact there, and erfc keeps the digits erf would lose.
  for (int step = 0; step < 4; ++step) {
    const double residual = ax < 0.5 ? std::erf(y) - ax : (1 - ax) - std::erfc(y);
    const double slope = kTwoOverSqrtPi * std::exp(-y * y);
    if (slope == 0) break;
    y -= residual / (slope + y * residual);
  }
  return x < 0 ? -y : y;
}

double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == std::numeric_limits<double>::infinity()) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  double result = 0;
  if (x < 0) {
    // Reflection: digamma(x) = digamma(1 - x) - pi / tan(pi x); tan has period pi, so the
    // fractional part of x keeps the argument small and exact.
    result = -kPi / std::tan(kPi * (x - std::floor(x)));
    x = 1 - x;
  }
  // Recurrence digamma(x) = digamma(x + 1) - 1 / x up to where the asymptotic series is
  // accurate to double precision.
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double inv2 = 1 / (x * x);
  // ln x - 1/(2x) - sum B_2k / (2k x^2k), k = 1..6.
  const double series =
      inv2 *
      (1.0 / 12 - inv2 * (1.0 / 120 -
                          inv2 * (1.0 / 252 -
                                  inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * 691.0 / 32760)))));
  return result + std::log(x) - 0.5 / x - series;
}

}  // namespace ndbuf::program::detail
