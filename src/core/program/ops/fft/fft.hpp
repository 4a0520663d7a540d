// stablehlo.fft: FFT, IFFT, RFFT and IRFFT over the 1 to 3 trailing dimensions, batched over
// the leading ones, of any lengths (1-d transforms from fft_line.hpp). complex<f32> and f32
// compute in float, complex<f64> and f64 in double.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
// "FFT", "IFFT", "RFFT", "IRFFT"; nullopt for anything else.
std::optional<FftType> fft_type_named(std::string_view name);

struct FftResultType {
  DType dtype;
  Shape shape;
};

// Why these lengths are refused whatever the operand (1 to 3 of them, each 0 to
// kMaxFftLength), or "".
std::string fft_length_problem(const std::vector<int64_t>& lengths);
// Why `type` cannot transform an operand of this dtype and shape with these lengths (which
// fft_length_problem() accepted), or "" when it can: the spec's constraints, with the trailing
// dimensions equal to the lengths (IRFFT's last one n / 2 + 1) for every type, as XLA requires.
std::string fft_problem(FftType type, DType dtype, const Shape& shape,
                        const std::vector<int64_t>& lengths);
// The result type the spec infers (after fft_problem() found nothing).
FftResultType fft_result_type(FftType type, DType dtype, const Shape& shape,
                              const std::vector<int64_t>& lengths);

// The transform; IFFT and IRFFT are scaled by 1 / (product of the lengths), as the spec's
// inverse of FFT and RFFT.
Tensor fft(const Tensor& operand, FftType type, const std::vector<int64_t>& lengths);

}  // namespace ndbuf::program
