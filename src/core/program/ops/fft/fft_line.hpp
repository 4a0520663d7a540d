// One-dimensional discrete Fourier transforms of any length, the engine of stablehlo.fft
// (fft.hpp). Where the build found FFTW (NDBUF_HAVE_FFTW), FFTW's planned transforms run them
// (fft_line_fftw.cpp). Otherwise (fft_line.cpp) lengths whose prime factors are all small go to
// Eigen's FFT module (its kissfft backend, mixed radix 2 / 3 / 4 / 5 with a generic O(n p)
// butterfly for other factors p); lengths with a larger prime factor go through Bluestein's
// chirp-z algorithm over Eigen's transform of a length made of 2s, 3s and 5s, O(n log n)
// instead of kissfft's O(n^2) for a prime length.
// A plan is not thread-safe: each thread works on its own copy.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace ndbuf::program {

// The largest length stablehlo.fft accepts: Eigen's FFT takes int lengths, and Bluestein's
// transforms are up to four times longer.
inline constexpr int64_t kMaxFftLength = int64_t{1} << 28;

template <class S>
class FftLine {
 public:
  using Complex = std::complex<S>;
  // Plans transforms of length `n` (1 <= n <= kMaxFftLength).
  explicit FftLine(int64_t n);
  FftLine(const FftLine& other);
  FftLine& operator=(const FftLine&) = delete;
  ~FftLine();

  int64_t length() const;
  // data[k] = sum_j data[j] exp(-+2 pi i jk / n), in place; the inverse is unscaled.
  void forward(Complex* data);
  void inverse(Complex* data);
  // n reals -> the n / 2 + 1 first values of their transform.
  void real_forward(const S* in, Complex* out);
  // n / 2 + 1 values of a Hermitian spectrum -> the n reals of its unscaled inverse (the
  // imaginary parts of the values that must be real are ignored, as in any real inverse).
  void real_inverse(const Complex* in, S* out);

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

extern template class FftLine<float>;
extern template class FftLine<double>;

}  // namespace ndbuf::program
