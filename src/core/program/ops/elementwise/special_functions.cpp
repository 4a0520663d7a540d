// bessel_i1e, Hurwitz zeta, polygamma and a 16-bit next_after (special_functions.hpp).
#include "program/ops/elementwise/special_functions.hpp"

#include <cmath>
#include <limits>

#include "ndbuf/base/half.hpp"
#include "program/ops/elementwise/elementwise_math.hpp"

namespace ndbuf::program::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// exp(-x) I1(x) for 0 <= x <= 50 by the power series of I1, every term scaled by exp(-x): the
// terms are all positive, so the sum loses nothing to cancellation.
double i1e_series(double x) {
  const double quarter_square = x * x / 4;
  double term = x / 2 * std::exp(-x);
  double sum = term;
  for (int k = 0; k < 500 && term > sum * 1e-18; ++k) {
    term *= quarter_square / ((k + 1.0) * (k + 2.0));
    sum += term;
  }
  return sum;
}

// exp(-x) I1(x) for x > 50 by the asymptotic expansion
// (2 pi x)^-1/2 sum_k (-1)^k prod_{j <= k} (4 - (2j - 1)^2) / (k! (8x)^k); its terms shrink
// until k is about 2x, far beyond the 40 taken here.
double i1e_asymptotic(double x) {
  double term = 1;
  double sum = 1;
  for (int k = 1; k <= 40; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(4 - odd * odd) / (k * 8 * x);
    sum += term;
    if (std::fabs(term) < 1e-18) break;
  }
  return sum / std::sqrt(2 * kPi * x);
}

// B_2j / (2j)! for j = 1..13, the Euler-Maclaurin coefficients.
constexpr double kBernoulliOverFactorial[] = {
    1.0 / 12,
    -1.0 / 720,
    1.0 / 30240,
    -1.0 / 1209600,
    1.0 / 47900160,
    -691.0 / 1307674368000.0,
    1.0 / 74724249600.0,
    -3617.0 / 10670622842880000.0,
    43867.0 / 5109094217170944000.0,
    -174611.0 / 802857662698291200000.0,
    77683.0 / 14101100039391805440000.0,
    -236364091.0 / 1693824136731743669452800000.0,
    657931.0 / 186134520519971831808000000.0,
};

// zeta(x, a) for a >= 10 by Euler-Maclaurin: the integral of the tail, half its first term
// and the Bernoulli corrections x (x + 1) ... (x + 2j - 2) a^(-x - 2j + 1) B_2j / (2j)!.
double zeta_tail(double x, double a) {
  const double first = std::pow(a, -x);
  double sum = a * first / (x - 1) + first / 2;
  double factor = x * first / a;  // x a^(-x-1)
  for (int j = 0; j < 13; ++j) {
    const double term = kBernoulliOverFactorial[j] * factor;
    sum += term;
    if (std::fabs(term) <= std::fabs(sum) * 1e-17) break;
    factor *= (x + 2 * j + 1) * (x + 2 * j + 2) / (a * a);
  }
  return sum;
}

}  // namespace

double bessel_i1e(double x) {
  if (std::isnan(x)) return x;
  const double ax = std::fabs(x);
  if (ax == kInf) return std::copysign(0.0, x);  // the limit of (2 pi x)^-1/2
  const double magnitude = ax <= 50 ? i1e_series(ax) : i1e_asymptotic(ax);
  return x < 0 ? -magnitude : magnitude;
}

double hurwitz_zeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  const bool x_whole = x == std::floor(x);
  if (q <= 0) {
    if (q == std::floor(q)) return x_whole && std::fmod(x, 2) == 0 ? kInf : kNaN;
    if (!x_whole) return kNaN;
  }
  if (x == kInf) return q == 1 ? 1 : (q > 1 ? 0 : kNaN);
  // Sum the first terms directly until the shifted argument reaches 10 (at least 9 terms),
  // then the tail.
  double sum = 0;
  double a = q;
  for (int k = 0; k < 9 || a < 10; ++k, a += 1) {
    sum += std::pow(a, -x);
    if (k > 100000000) return kNaN;  // q below -1e8: not a useful value
  }
  return sum + zeta_tail(x, a);
}

double polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n)) return kNaN;
  if (n == 0) return digamma(x);
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x).
  const double sign = std::fmod(n, 2) == 1 ? 1 : -1;
  // tgamma, not lgamma: lgamma writes the global signgam, and fused blocks run in parallel.
  return sign * std::tgamma(n + 1) * hurwitz_zeta(n + 1, x);
}

double next_after_16(double x, double y, bool bfloat) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (x == y) return y;
  const auto bits_of = [bfloat](double v) {
    return bfloat ? double_to_bfloat16_bits(v) : double_to_half_bits(v);
  };
  const uint16_t xb = bits_of(x);
  uint16_t result;
  if (x == 0) {
    result = static_cast<uint16_t>((bits_of(y) & 0x8000u) | 1u);  // the smallest subnormal
  } else {
    const bool away_from_zero = (x < y) == (x > 0);
    result = static_cast<uint16_t>(away_from_zero ? xb + 1 : xb - 1);
  }
  return bfloat ? bfloat16_bits_to_double(result) : half_bits_to_double(result);
}

}  // namespace ndbuf::program::detail
