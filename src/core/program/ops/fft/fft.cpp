// stablehlo.fft (see fft.hpp): passes of 1-d transforms along each transformed axis of a dense
// row-major complex work tensor, in parallel over the lines of a pass.
#include "program/ops/fft/fft.hpp"

#include <algorithm>
#include <atomic>
#include <complex>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/axis_extent.hpp"
#include "program/ops/fft/fft_line.hpp"

namespace ndbuf::program {
namespace {

template <class S>
using Cx = std::complex<S>;

// Lines of a pass along an inner axis are gathered this many at a time, so the gather reads
// runs of consecutive elements instead of one element per cache line.
constexpr int64_t kColumns = 8;

// Runs body(line, begin, end) over the items [0, count) in parallel, each block with its own
// copy of one plan of length n. The first item runs on the calling thread with the plan itself,
// which makes the engine plan once (Eigen's twiddle factors, FFTW's plan), before the copies
// are taken.
template <class S, class Body>
void run_lines(int64_t n, int64_t count, int64_t elements_per_item, const Body& body) {
  if (count == 0) return;
  FftLine<S> prototype(n);
  body(prototype, 0, 1);
  std::atomic<bool> failed{false};
  const int64_t bytes_per_item = elements_per_item * static_cast<int64_t>(2 * sizeof(Cx<S>));
  for_each_block(
      count - 1, bytes_per_item,
      [&](int64_t begin, int64_t end) {
        try {  // a plan's copy allocates; nothing may throw inside the parallel loop
          FftLine<S> line(prototype);
          body(line, begin + 1, end + 1);
        } catch (...) {
          failed.store(true);
        }
      },
      elements_per_item);
  if (failed.load())
    fail(ErrorKind::kOutOfMemory, "stablehlo.fft could not allocate its work space");
}

template <class S>
void transform(FftLine<S>& line, Cx<S>* data, bool inverse) {
  if (inverse) {
    line.inverse(data);
  } else {
    line.forward(data);
  }
}

// Transforms every line of `data` (dense row-major complex of `shape`) along `axis`, then
// multiplies by `scale` (1 but for the last pass of an inverse).
template <class S>
void transform_axis(Cx<S>* data, const Shape& shape, size_t axis, bool inverse, S scale) {
  const AxisExtent e = axis_extent(shape, axis);
  const int64_t n = e.length;
  const int64_t columns = std::min(e.inner, kColumns);
  const int64_t chunks = (e.inner + columns - 1) / columns;
  run_lines<S>(n, e.outer * chunks, n * columns, [&](FftLine<S>& line, int64_t b, int64_t end) {
    std::vector<Cx<S>> buffer(static_cast<size_t>(e.inner == 1 ? 0 : n * columns));
    for (int64_t item = b; item < end; ++item) {
      const int64_t first = (item % chunks) * columns;
      const int64_t width = std::min(columns, e.inner - first);
      Cx<S>* base = data + (item / chunks) * n * e.inner + first;
      if (e.inner == 1) {
        transform(line, base, inverse);
        if (scale != S(1)) std::for_each(base, base + n, [scale](Cx<S>& v) { v *= scale; });
        continue;
      }
      for (int64_t t = 0; t < n; ++t) {
        for (int64_t c = 0; c < width; ++c) buffer[c * n + t] = base[t * e.inner + c];
      }
      for (int64_t c = 0; c < width; ++c) transform(line, buffer.data() + c * n, inverse);
      for (int64_t t = 0; t < n; ++t) {
        for (int64_t c = 0; c < width; ++c) base[t * e.inner + c] = buffer[c * n + t] * scale;
      }
    }
  });
}

// RFFT's first pass: rows of n reals -> rows of n / 2 + 1 values.
template <class S>
void real_forward_rows(const S* in, Cx<S>* out, int64_t rows, int64_t n) {
  const int64_t half = n / 2 + 1;
  run_lines<S>(n, rows, n, [&](FftLine<S>& line, int64_t b, int64_t end) {
    for (int64_t r = b; r < end; ++r) line.real_forward(in + r * n, out + r * half);
  });
}

// IRFFT's last pass: rows of n / 2 + 1 values -> rows of n reals, times `scale`.
template <class S>
void real_inverse_rows(const Cx<S>* in, S* out, int64_t rows, int64_t n, S scale) {
  const int64_t half = n / 2 + 1;
  run_lines<S>(n, rows, n, [&](FftLine<S>& line, int64_t b, int64_t end) {
    for (int64_t r = b; r < end; ++r) {
      S* row = out + r * n;
      line.real_inverse(in + r * half, row);
      for (int64_t k = 0; k < n; ++k) row[k] *= scale;
    }
  });
}

template <class S>
Tensor fft_typed(const Tensor& operand, FftType type, const std::vector<int64_t>& lengths) {
  const FftResultType rt = fft_result_type(type, operand.dtype(), operand.shape(), lengths);
  Tensor out = Tensor::allocate(rt.dtype, rt.shape, Order::kRowMajor);
  if (out.numel() == 0 || operand.numel() == 0) return out;
  const size_t rank = rt.shape.size();
  const size_t first = rank - lengths.size();
  double count = 1;
  for (int64_t n : lengths) count *= static_cast<double>(n);
  const S scale = static_cast<S>(1 / count);
  const int64_t n = lengths.back();
  if (type == FftType::kFft || type == FftType::kIfft) {
    copy_to_dense(operand, out.data(), Order::kRowMajor);
    auto* data = static_cast<Cx<S>*>(out.data());
    for (size_t k = 0; k < lengths.size(); ++k) {
      const bool inverse = type == FftType::kIfft;
      const size_t axis = inverse ? first + k : rank - 1 - k;
      const bool last = k + 1 == lengths.size();
      transform_axis<S>(data, rt.shape, axis, inverse, inverse && last ? scale : S(1));
    }
  } else if (type == FftType::kRfft) {
    const Tensor real = make_dense(operand, Order::kRowMajor);
    auto* data = static_cast<Cx<S>*>(out.data());
    real_forward_rows<S>(static_cast<const S*>(real.data()), data, real.numel() / n, n);
    for (size_t axis = rank - 1; axis-- > first;) transform_axis<S>(data, rt.shape, axis, false, 1);
  } else {
    Tensor work = Tensor::allocate(operand.dtype(), operand.shape(), Order::kRowMajor);
    copy_to_dense(operand, work.data(), Order::kRowMajor);
    auto* data = static_cast<Cx<S>*>(work.data());
    for (size_t axis = first; axis + 1 < rank; ++axis) {
      transform_axis<S>(data, operand.shape(), axis, true, 1);
    }
    real_inverse_rows<S>(data, static_cast<S*>(out.data()), out.numel() / n, n, scale);
  }
  return out;
}

std::string shape_text(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t k = 0; k < values.size(); ++k) {
    text += (k ? ", " : "") + std::to_string(values[k]);
  }
  return text + "]";
}

const char* type_name(FftType type) {
  constexpr const char* kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return kNames[static_cast<size_t>(type)];
}

// The operand's dimensions the lengths fix: all of them, but IRFFT's last one, n / 2 + 1.
std::vector<int64_t> expected_dims(FftType type, const std::vector<int64_t>& lengths) {
  std::vector<int64_t> dims = lengths;
  if (type == FftType::kIrfft && dims.back() != 0) dims.back() = dims.back() / 2 + 1;
  return dims;
}

}  // namespace

std::string fft_length_problem(const std::vector<int64_t>& lengths) {
  if (lengths.empty() || lengths.size() > 3) {
    return "needs 1 to 3 fft_length values, not " + std::to_string(lengths.size());
  }
  for (int64_t n : lengths) {
    if (n < 0 || n > kMaxFftLength) {
      return "needs fft_length values from 0 to " + std::to_string(kMaxFftLength) + ", not " +
             std::to_string(n);
    }
  }
  return "";
}

std::string fft_problem(FftType type, DType dtype, const Shape& shape,
                        const std::vector<int64_t>& lengths) {
  const std::string name = type_name(type);
  if (type == FftType::kRfft ? dtype != DType::kF32 && dtype != DType::kF64
                             : dtype != DType::kC64 && dtype != DType::kC128) {
    return name + (type == FftType::kRfft ? " needs an f32 or f64 operand"
                                          : " needs a complex<f32> or complex<f64> operand");
  }
  if (shape.size() < lengths.size()) {
    return "needs an operand of rank " + std::to_string(lengths.size()) + " or more";
  }
  const std::vector<int64_t> dims = expected_dims(type, lengths);
  if (!std::equal(dims.begin(), dims.end(), shape.end() - dims.size())) {
    return name + " with fft_length " + shape_text(lengths) + " needs the operand's last " +
           (dims.size() == 1 ? "dimension" : std::to_string(dims.size()) + " dimensions") +
           " to be " + shape_text(dims);
  }
  return "";
}

FftResultType fft_result_type(FftType type, DType dtype, const Shape& shape,
                              const std::vector<int64_t>& lengths) {
  FftResultType r{dtype, shape};
  const int64_t n = lengths.back();
  if (type == FftType::kRfft) {
    r.dtype = dtype == DType::kF32 ? DType::kC64 : DType::kC128;
    r.shape.back() = n == 0 ? 0 : n / 2 + 1;
  } else if (type == FftType::kIrfft) {
    r.dtype = dtype == DType::kC64 ? DType::kF32 : DType::kF64;
    r.shape.back() = n;
  }
  return r;
}

std::optional<FftType> fft_type_named(std::string_view name) {
  if (name == "FFT") return FftType::kFft;
  if (name == "IFFT") return FftType::kIfft;
  if (name == "RFFT") return FftType::kRfft;
  if (name == "IRFFT") return FftType::kIrfft;
  return std::nullopt;
}

Tensor fft(const Tensor& operand, FftType type, const std::vector<int64_t>& lengths) {
  const DType d = operand.dtype();
  if (d == DType::kF32 || d == DType::kC64) return fft_typed<float>(operand, type, lengths);
  return fft_typed<double>(operand, type, lengths);
}

}  // namespace ndbuf::program
