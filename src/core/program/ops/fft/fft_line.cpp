// The 1-d transforms of fft_line.hpp: Eigen's FFT module for lengths made of small prime
// factors, Bluestein's algorithm over its transform of a length made of 2s, 3s and 5s for the
// others. Builds that found FFTW run fft_line_fftw.cpp instead.
#ifndef NDBUF_HAVE_FFTW

#include "program/ops/fft/fft_line.hpp"

#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/FFT>
#include <vector>

namespace ndbuf::program {
namespace {

// kissfft's butterflies for 2, 3, 4 and 5 are specialised; a factor p above them costs
// O(n p) (measured on n = 1009: 22 ms against 0.1 ms through Bluestein). Around 3000-4000
// points a factor 17 came out about even with Bluestein's two transforms of about twice the
// length, 19 and above slower (0.64-0.67 ms against 0.49-0.58 ms for 8 x 19^2).
constexpr int64_t kMaxDirectFactor = 13;

int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  }
  return n > 1 ? std::max(largest, n) : largest;
}

// The smallest m >= n whose prime factors are 2, 3 and 5, lengths kissfft's specialised
// butterflies transform fast. They lie close together (8640 is the first above 8197, where
// the next power of two is 16384), so Bluestein's transforms stay near twice the length.
int64_t smooth_length_at_least(int64_t n) {
  for (int64_t m = n;; ++m) {
    int64_t rest = m;
    for (int64_t p : {2, 3, 5}) {
      while (rest % p == 0) rest /= p;
    }
    if (rest == 1) return m;
  }
}

}  // namespace

template <class S>
struct FftLine<S>::Plan {
  int64_t n = 0;
  int64_t m = 0;  // Bluestein's transform length, 0 for the direct transform
  Eigen::FFT<S> fft;
  std::vector<Complex> chirp;   // exp(-i pi k^2 / n), k < n
  std::vector<Complex> kernel;  // the transform of the conjugate chirp, wrapped, divided by m
  std::vector<Complex> work, spare, line;

  explicit Plan(int64_t length) : n(length) {
    fft.SetFlag(Eigen::FFT<S>::Unscaled);
    fft.SetFlag(Eigen::FFT<S>::HalfSpectrum);
    line.resize(static_cast<size_t>(n));
    if (largest_prime_factor(n) > kMaxDirectFactor) plan_bluestein();
  }

  void plan_bluestein() {
    m = smooth_length_at_least(2 * n - 1);
    chirp.resize(static_cast<size_t>(n));
    work.assign(static_cast<size_t>(m), Complex(0));
    spare.resize(static_cast<size_t>(m));
    // k^2 mod 2n exactly, so the angle stays accurate for long transforms.
    int64_t square = 0;
    for (int64_t k = 0; k < n; ++k) {
      chirp[k] = Complex(std::polar(1.0, -M_PI * static_cast<double>(square) / n));
      square = (square + 2 * k + 1) % (2 * n);
    }
    for (int64_t k = 0; k < n; ++k) {
      work[k] = std::conj(chirp[k]);
      if (k > 0) work[m - k] = std::conj(chirp[k]);
    }
    kernel.resize(static_cast<size_t>(m));
    fft.fwd(kernel.data(), work.data(), m);
    for (Complex& v : kernel) v /= static_cast<S>(m);
    fft.inv(work.data(), kernel.data(), m);  // plans the inverse too (copies share the plans)
  }

  // data[k] <- sum_j data[j] exp(-2 pi i jk / n) via the convolution with the chirp.
  void bluestein_forward(Complex* data) {
    std::fill(work.begin() + n, work.end(), Complex(0));
    for (int64_t k = 0; k < n; ++k) work[k] = data[k] * chirp[k];
    fft.fwd(spare.data(), work.data(), m);
    for (int64_t j = 0; j < m; ++j) spare[j] *= kernel[j];
    fft.inv(work.data(), spare.data(), m);
    for (int64_t k = 0; k < n; ++k) data[k] = work[k] * chirp[k];
  }

  void forward(Complex* data) {
    if (n == 1) return;
    if (m > 0) return bluestein_forward(data);
    fft.fwd(line.data(), data, n);
    std::copy(line.begin(), line.end(), data);
  }

  void inverse(Complex* data) {
    if (n == 1) return;
    if (m > 0) {  // the inverse is the conjugate of the forward transform of the conjugate
      for (int64_t k = 0; k < n; ++k) data[k] = std::conj(data[k]);
      bluestein_forward(data);
      for (int64_t k = 0; k < n; ++k) data[k] = std::conj(data[k]);
      return;
    }
    fft.inv(line.data(), data, n);
    std::copy(line.begin(), line.end(), data);
  }

  void real_forward(const S* in, Complex* out) {
    if (m > 0 || n == 1) {
      for (int64_t k = 0; k < n; ++k) line[k] = Complex(in[k], 0);
      forward(line.data());
      std::copy(line.begin(), line.begin() + n / 2 + 1, out);
      return;
    }
    fft.fwd(out, in, n);
  }

  void real_inverse(const Complex* in, S* out) {
    if (m > 0 || n == 1) {
      for (int64_t k = 0; k < n; ++k) line[k] = 2 * k <= n ? in[k] : std::conj(in[n - k]);
      line[0] = Complex(line[0].real(), 0);
      if (n % 2 == 0) line[n / 2] = Complex(line[n / 2].real(), 0);
      inverse(line.data());
      for (int64_t k = 0; k < n; ++k) out[k] = line[k].real();
      return;
    }
    fft.inv(out, in, n);
  }
};

template <class S>
FftLine<S>::FftLine(int64_t n) : plan_(std::make_unique<Plan>(n)) {}

template <class S>
FftLine<S>::FftLine(const FftLine& other) : plan_(std::make_unique<Plan>(*other.plan_)) {}

template <class S>
FftLine<S>::~FftLine() = default;

template <class S>
int64_t FftLine<S>::length() const {
  return plan_->n;
}

template <class S>
void FftLine<S>::forward(Complex* data) {
  plan_->forward(data);
}

template <class S>
void FftLine<S>::inverse(Complex* data) {
  plan_->inverse(data);
}

template <class S>
void FftLine<S>::real_forward(const S* in, Complex* out) {
  plan_->real_forward(in, out);
}

template <class S>
void FftLine<S>::real_inverse(const Complex* in, S* out) {
  plan_->real_inverse(in, out);
}

template class FftLine<float>;
template class FftLine<double>;

}  // namespace ndbuf::program

#endif  // NDBUF_HAVE_FFTW
