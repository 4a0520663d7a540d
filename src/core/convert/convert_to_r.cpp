// Element conversions from ndbuf dtypes to R's vector representations (as_array()).
#include <atomic>
#include <complex>
#include <cstring>
#include <memory>
#include <type_traits>

#include "convert/convert_loops.hpp"
#include "convert/half_kernels.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

template <class Out, class In, class Cast>
void widen_all(const In* in, Out* out, int64_t count, Cast cast) {
  for_each_block(count, sizeof(In) + sizeof(Out), [&](int64_t begin, int64_t end) {
    // Local pointers: a char-sized store could alias the closure the captures live in, and
    // reloading them every element stops the loop from vectorising.
    const In* src = in + begin;
    Out* dst = out + begin;
#pragma omp simd
    for (int64_t i = 0; i < end - begin; ++i) dst[i] = cast(src[i]);
  });
}

// Copies `count` elements and counts those equal to `value` in the same pass.
template <class T>
int64_t copy_counting(const T* in, T* out, int64_t count, T value) {
  std::atomic<int64_t> found{0};
  for_each_block(count, 2 * sizeof(T), [&](int64_t begin, int64_t end) {
    const T* src = in + begin;
    T* dst = out + begin;
    const T sentinel = value;
    int64_t local = 0;
#pragma omp simd reduction(+ : local)
    for (int64_t i = 0; i < end - begin; ++i) {
      dst[i] = src[i];
      local += lane_equal(src[i], sentinel);
    }
    if (local > 0) found += local;
  });
  return found.load();
}

int64_t u64_to_integer64(const uint64_t* in, int64_t* out, int64_t count) {
  std::atomic<int64_t> unrepresentable{0};
  for_each_block(count, 16, [&](int64_t begin, int64_t end) {
    const uint64_t* src = in + begin;
    int64_t* dst = out + begin;
    int64_t local = 0;
#pragma omp simd reduction(+ : local)
    for (int64_t i = 0; i < end - begin; ++i) {
      // Without a 64-bit compare (see lane_equal()): a value of 2^63 or more has its top bit
      // set, and keeping only that bit makes it kRInteger64NA.
      const uint64_t too_large = src[i] >> 63;
      dst[i] = static_cast<int64_t>(src[i] & ~((uint64_t{0} - too_large) >> 1));
      local += static_cast<int64_t>(too_large);
    }
    if (local > 0) unrepresentable += local;
  });
  return unrepresentable.load();
}

template <class T>
void widen_halves(const T* in, double* out, int64_t count) {
  const auto* bits = reinterpret_cast<const uint16_t*>(in);
  for_each_block(count, sizeof(T) + sizeof(double), [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, Half>) {
      widen_f16(bits + begin, out + begin, end - begin);
    } else {
      widen_bf16(bits + begin, out + begin, end - begin);
    }
  });
}

template <class T>
int64_t to_r(const T* in, void* out, int64_t count, DType dtype) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>) {
    copy_bytes(out, in, static_cast<size_t>(count) * sizeof(T));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return copy_counting(in, static_cast<int32_t*>(out), count, kRIntegerNA);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return copy_counting(in, static_cast<int64_t*>(out), count, kRInteger64NA);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return u64_to_integer64(in, static_cast<int64_t*>(out), count);
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    widen_all(in, static_cast<int64_t*>(out), count, [](uint32_t x) { return int64_t{x}; });
  } else if constexpr (std::is_integral_v<T>) {
    if (dtype == DType::kPred) {
      widen_all(in, static_cast<int32_t*>(out), count, [](T x) { return int32_t{x != 0}; });
    } else {
      widen_all(in, static_cast<int32_t*>(out), count, [](T x) { return int32_t{x}; });
    }
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    widen_all(in, static_cast<std::complex<double>*>(out), count,
              [](std::complex<float> z) { return std::complex<double>(z); });
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    widen_halves(in, static_cast<double*>(out), count);
  } else {
    widen_all(in, static_cast<double*>(out), count, [](T x) { return to_double_value(x); });
  }
  return 0;
}

}  // namespace

int64_t convert_to_r(DType dtype, const void* in, void* out, int64_t count) {
  if (count == 0) return 0;  // an empty vector's pointers may be null, even for memcpy of 0 bytes
  return dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return to_r<T>(static_cast<const T*>(in), out, count, dtype);
  });
}

int64_t tensor_to_r(const Tensor& tensor, void* out, Order order) {
  if (tensor.numel() == 0) return 0;  // `out` may be null then
  if (!is_host(tensor.device())) return tensor_to_r(to_host(tensor), out, order);
  const DType dtype = tensor.dtype();
  if (tensor.is_contiguous(order)) return convert_to_r(dtype, tensor.data(), out, tensor.numel());
  if (dtype == DType::kF64 || dtype == DType::kC128) {  // R's own bytes: one strided copy
    copy_to_dense(tensor, out, order);
    return 0;
  }
  // Other types: gather the elements densely, then convert them.
  const std::unique_ptr<char[]> dense(new char[static_cast<size_t>(tensor.nbytes())]);
  copy_to_dense(tensor, dense.get(), order);
  return convert_to_r(dtype, dense.get(), out, tensor.numel());
}

}  // namespace ndbuf
