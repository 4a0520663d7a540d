// stablehlo.fft and its 1-d engine against a naive discrete Fourier transform written here
// from the definition (sums in long double).
#include "program/ops/fft/fft.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "program/ops/fft/fft_line.hpp"
#include "tests/program/program_test_util.hpp"

namespace ndbuf::program {
namespace {

using testing::compile_error;
using testing::run;
using testing::tensor_of;
using testing::values;
using Z = std::complex<double>;
using LZ = std::complex<long double>;

// The transform of the `lengths`-shaped trailing block of every batch of `x` (row-major, shape
// batch x lengths): X[k] = sum_j x[j] exp(-+2 pi i sum_a j_a k_a / n_a), scaled by 1/N inverse.
// Each axis's roots of unity are tabulated in long double, indexed by j_a k_a mod n_a.
std::vector<Z> naive_dft(const std::vector<Z>& x, const std::vector<int64_t>& lengths,
                         bool inverse) {
  const long double pi = std::acos(-1.0L);
  std::vector<std::vector<LZ>> roots;
  int64_t block = 1;
  for (int64_t n : lengths) {
    block *= n;
    roots.emplace_back();
    for (int64_t t = 0; t < n; ++t) {
      const long double angle = (inverse ? 2 : -2) * pi * t / n;
      roots.back().emplace_back(std::cos(angle), std::sin(angle));
    }
  }
  std::vector<Z> out(x.size());
  for (size_t base = 0; base < x.size(); base += static_cast<size_t>(block)) {
    for (int64_t k = 0; k < block; ++k) {
      LZ sum = 0;
      for (int64_t j = 0; j < block; ++j) {
        LZ term = x[base + j];
        for (int64_t a = static_cast<int64_t>(lengths.size()) - 1, jr = j, kr = k; a >= 0; --a) {
          const int64_t n = lengths[a];
          term *= roots[a][(jr % n) * (kr % n) % n];
          jr /= n;
          kr /= n;
        }
        sum += term;
      }
      out[base + k] = Z(sum) / (inverse ? static_cast<double>(block) : 1.0);
    }
  }
  return out;
}

std::vector<Z> random_complex(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Z> v(count);
  for (Z& z : v) z = Z(u(rng), u(rng));
  return v;
}

double max_error(const std::vector<Z>& got, const std::vector<Z>& want) {
  double worst = 0;
  for (size_t k = 0; k < got.size(); ++k) worst = std::max(worst, std::abs(got[k] - want[k]));
  return worst;
}

// Lengths of every kind: 1, powers of two, small mixed radices (kissfft), small primes up to
// the direct limit, larger primes and products with one (Bluestein).
const std::vector<int64_t> kLengths = {1,   2,   3,   4,   5,   6,   7,    8,    9,    11,  12,
                                       13,  16,  17,  18,  30,  31,  64,   97,   100,  128, 210,
                                       243, 254, 255, 256, 257, 391, 1009, 1024, 2048, 4099};

TEST(FftLine, MatchesTheDefinitionForEveryKindOfLength) {
  for (int64_t n : kLengths) {
    const std::vector<Z> x = random_complex(static_cast<size_t>(n), static_cast<unsigned>(n));
    const double tolerance = 1e-14 * std::sqrt(static_cast<double>(n)) * std::log2(2.0 * n);
    FftLine<double> line(n);
    std::vector<Z> f = x;
    line.forward(f.data());
    EXPECT_LT(max_error(f, naive_dft(x, {n}, false)), tolerance) << n;
    std::vector<Z> i = x;
    FftLine<double> copy(line);  // a thread's copy gives the same transforms
    copy.inverse(i.data());
    std::vector<Z> want = naive_dft(x, {n}, true);
    for (Z& z : want) z *= static_cast<double>(n);  // the engine's inverse is unscaled
    EXPECT_LT(max_error(i, want), tolerance) << n;
  }
}

TEST(FftLine, RealTransformsMatchTheComplexOnes) {
  for (int64_t n : kLengths) {
    std::vector<Z> x = random_complex(static_cast<size_t>(n), static_cast<unsigned>(n) + 7);
    std::vector<double> reals(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) reals[k] = x[k].real(), x[k] = Z(x[k].real(), 0);
    const double tolerance = 1e-14 * std::sqrt(static_cast<double>(n)) * std::log2(2.0 * n);
    FftLine<double> line(n);
    std::vector<Z> half(static_cast<size_t>(n / 2 + 1));
    line.real_forward(reals.data(), half.data());
    const std::vector<Z> spectrum = naive_dft(x, {n}, false);
    EXPECT_LT(max_error(half, std::vector<Z>(spectrum.begin(), spectrum.begin() + n / 2 + 1)),
              tolerance)
        << n;
    // Back from the half spectrum, with junk in the imaginary parts that must be ignored.
    half[0] += Z(0, 5);
    if (n % 2 == 0) half[n / 2] += Z(0, -3);
    std::vector<double> back(static_cast<size_t>(n));
    FftLine<double>(line).real_inverse(half.data(), back.data());
    double worst = 0;
    for (int64_t k = 0; k < n; ++k) worst = std::max(worst, std::abs(back[k] / n - reals[k]));
    EXPECT_LT(worst, tolerance) << n;
  }
}

TEST(FftLine, FloatAccuracyHoldsForPrimeLengths) {
  for (int64_t n : {17, 1009, 4099, 65537}) {
    const std::vector<Z> x = random_complex(static_cast<size_t>(n), 3);
    std::vector<std::complex<float>> f(x.begin(), x.end());
    FftLine<float>(n).forward(f.data());
    std::vector<Z> want(x.size());
    if (n <= 4099) {
      want = naive_dft(x, {n}, false);
    } else {  // too long for the naive sum: compare with the double engine, checked above
      want = x;
      FftLine<double>(n).forward(want.data());
    }
    const std::vector<Z> got(f.begin(), f.end());
    // sqrt(n) is the size of the values; float keeps about 1e-6 of it.
    EXPECT_LT(max_error(got, want), 2e-5 * std::sqrt(static_cast<double>(n)) * std::log2(n)) << n;
  }
}

Tensor c128(const Shape& shape, const std::vector<Z>& v) {
  return tensor_of(DType::kC128, shape, v);
}

TEST(FftKernel, MultiDimensionalBatchedTransformsMatchTheDefinition) {
  struct Case {
    Shape shape;
    std::vector<int64_t> lengths;
  };
  for (const Case& c : {Case{{3, 5, 7}, {7}}, Case{{2, 3, 10}, {3, 10}},
                        Case{{2, 4, 3, 5}, {4, 3, 5}}, Case{{19, 17}, {19, 17}}}) {
    size_t count = 1;
    for (int64_t d : c.shape) count *= static_cast<size_t>(d);
    const std::vector<Z> x = random_complex(count, static_cast<unsigned>(count));
    const Tensor forward = fft(c128(c.shape, x), FftType::kFft, c.lengths);
    EXPECT_LT(max_error(values<Z>(forward), naive_dft(x, c.lengths, false)), 1e-12);
    const Tensor inverse = fft(c128(c.shape, x), FftType::kIfft, c.lengths);
    EXPECT_LT(max_error(values<Z>(inverse), naive_dft(x, c.lengths, true)), 1e-14);
  }
}

TEST(FftKernel, RealTransformsKeepHalfTheLastAxis) {
  // RFFT of a 2 x 3 x 5 f64 block over its last two axes: the first 5/2+1 = 3 columns of the
  // complex transform; IRFFT of that gives the reals back.
  const Shape shape = {2, 3, 5};
  std::vector<Z> x = random_complex(30, 11);
  std::vector<double> reals;
  for (Z& z : x) reals.push_back(z.real()), z = Z(z.real(), 0);
  const Tensor r = fft(tensor_of(DType::kF64, shape, reals), FftType::kRfft, {3, 5});
  EXPECT_EQ(r.dtype(), DType::kC128);
  EXPECT_EQ(r.shape(), (Shape{2, 3, 3}));
  const std::vector<Z> full = naive_dft(x, {3, 5}, false);
  std::vector<Z> want;
  for (size_t k = 0; k < full.size(); ++k) {
    if (k % 5 < 3) want.push_back(full[k]);
  }
  EXPECT_LT(max_error(values<Z>(r), want), 1e-12);
  const Tensor back = fft(r, FftType::kIrfft, {3, 5});
  EXPECT_EQ(back.shape(), shape);
  const std::vector<double> got = values<double>(back);
  for (size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], reals[k], 1e-14) << k;
}

// Large enough for the parallel loop (each thread copying the plan): the same bits as one
// plan run serially over the lines, rows along the last axis and strided columns alike.
TEST(FftKernel, ParallelPassesGiveTheBitsOfASerialPlan) {
  const int64_t rows = 1024, cols = 161;  // 161 = 7 x 23 goes through Bluestein
  std::vector<Z> x = random_complex(static_cast<size_t>(rows * cols), 5);
  const Tensor got = fft(c128({rows, cols}, x), FftType::kFft, {rows, cols});
  FftLine<double> row_plan(cols), column_plan(rows);
  for (int64_t r = 0; r < rows; ++r) row_plan.forward(x.data() + r * cols);
  std::vector<Z> column(static_cast<size_t>(rows));
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) column[r] = x[r * cols + c];
    column_plan.forward(column.data());
    for (int64_t r = 0; r < rows; ++r) x[r * cols + c] = column[r];
  }
  EXPECT_EQ(values<Z>(got), x);
}

std::string fft_program(const std::string& in, const std::string& out, const std::string& body) {
  return "func.func @main(%a: " + in + ") -> " + out + " {\n  %r = " + body + " : (" + in +
         ") -> " + out + "\n  return %r : " + out + "\n}\n";
}

TEST(FftProgram, PrettyAndGenericFormsRun) {
  // The spec's example: a unit impulse transforms to ones.
  const Tensor impulse = tensor_of(DType::kC64, {4}, std::vector<std::complex<float>>{1, 0, 0, 0});
  const std::string type = "tensor<4xcomplex<f32>>";
  const std::string pretty = fft_program(type, type, "stablehlo.fft %a, type =  FFT, length = [4]");
  const std::string generic = fft_program(
      type, type,
      "\"stablehlo.fft\"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>}");
  const std::vector<std::complex<float>> ones(4, 1.0f);
  EXPECT_EQ(values<std::complex<float>>(run(pretty, {impulse})[0]), ones);
  EXPECT_EQ(values<std::complex<float>>(run(generic, {impulse})[0]), ones);
  // IRFFT of [6, -1.5+0.866i] (the RFFT of 1, 2, 3) with f32 output.
  const std::string irfft = fft_program("tensor<2xcomplex<f32>>", "tensor<3xf32>",
                                        "stablehlo.fft %a, type = IRFFT, length = [3]");
  const float h = std::sqrt(3.0f) / 2;
  const Tensor half =
      tensor_of(DType::kC64, {2}, std::vector<std::complex<float>>{{6, 0}, {-1.5f, h}});
  const std::vector<float> got = values<float>(run(irfft, {half})[0]);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], k + 1, 1e-6) << k;
}

TEST(FftProgram, TypeErrorsNameTheProblem) {
  EXPECT_EQ(compile_error(fft_program("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f64>>",
                                      "stablehlo.fft %a, type = FFT, length = [4]")),
            "2:8: 'stablehlo.fft' result type tensor<4xcomplex<f64>> should be "
            "tensor<4xcomplex<f32>>");
  EXPECT_EQ(compile_error(fft_program("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = FFT, length = [8]")),
            "2:8: 'stablehlo.fft' FFT with fft_length [8] needs the operand's last dimension to "
            "be [8], not tensor<4xcomplex<f32>>");
  EXPECT_EQ(compile_error(fft_program("tensor<3x4xf32>", "tensor<3x4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = RFFT, length = [3, 4]")),
            "2:8: 'stablehlo.fft' result type tensor<3x4xcomplex<f32>> should be "
            "tensor<3x3xcomplex<f32>>");
  EXPECT_EQ(compile_error(fft_program("tensor<4xf32>", "tensor<4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = FFT, length = [4]")),
            "2:8: 'stablehlo.fft' FFT needs a complex<f32> or complex<f64> operand, not "
            "tensor<4xf32>");
  EXPECT_EQ(compile_error(fft_program("tensor<4xf16>", "tensor<3xcomplex<f32>>",
                                      "stablehlo.fft %a, type = RFFT, length = [4]")),
            "2:8: 'stablehlo.fft' RFFT needs an f32 or f64 operand, not tensor<4xf16>");
  EXPECT_EQ(compile_error(fft_program("tensor<2x3xcomplex<f64>>", "tensor<2x6xf64>",
                                      "stablehlo.fft %a, type = IRFFT, length = [2, 6]")),
            "2:8: 'stablehlo.fft' IRFFT with fft_length [2, 6] needs the operand's last 2 "
            "dimensions to be [2, 4], not tensor<2x3xcomplex<f64>>");
  EXPECT_EQ(
      compile_error(fft_program("tensor<1x1x1x1xcomplex<f32>>", "tensor<1x1x1x1xcomplex<f32>>",
                                "stablehlo.fft %a, type = FFT, length = [1, 1, 1, 1]")),
      "2:8: 'stablehlo.fft' needs 1 to 3 fft_length values, not 4");
  EXPECT_EQ(compile_error(fft_program("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = FFT, length = [-4]")),
            "2:8: 'stablehlo.fft' needs fft_length values from 0 to 268435456, not -4");
  EXPECT_EQ(compile_error(fft_program("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = FFT, length = [2, 4]")),
            "2:8: 'stablehlo.fft' needs an operand of rank 2 or more, not tensor<4xcomplex<f32>>");
  EXPECT_EQ(compile_error(fft_program("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>",
                                      "stablehlo.fft %a, type = DCT, length = [4]")),
            "2:8: 'stablehlo.fft' has an unknown fft_type 'DCT'");
}

}  // namespace
}  // namespace ndbuf::program
