// Tests of the vectorised conversion loops for every source type and dtype, at lengths around
// block boundaries and large enough to run on several threads, against element-by-element
// references (plain casts and base/half's conversions).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/half.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

const int64_t kLengths[] = {1, kBlockElements - 1, kBlockElements + 1, 13 * kBlockElements + 3};

const DType kAllDTypes[] = {DType::kPred,  DType::kI8,  DType::kI16, DType::kI32, DType::kI64,
                            DType::kU8,    DType::kU16, DType::kU32, DType::kU64, DType::kF16,
                            DType::kBF16,  DType::kF32, DType::kF64, DType::kC64, DType::kC128,
                            DType::kF8E5M2};  // f8e4m3fn's range check: see convert_test.cpp

// Source values every dtype holds: 0/1 for pred, small whole numbers for integers (with a
// fraction for doubles, truncated toward zero), anything for floats (NA at some positions).
double source_value(int64_t i, DType dtype) {
  if (dtype == DType::kPred) return static_cast<double>(i % 3 == 0);
  if (!is_floating(dtype) && !is_complex(dtype)) return static_cast<double>(i % 101) + 0.75;
  return std::ldexp(static_cast<double>(i % 1000) - 499.5, static_cast<int>(i % 61) - 30);
}

bool missing_at(int64_t i, DType dtype) {
  return (is_floating(dtype) || is_complex(dtype)) && i % 977 == 5;
}

// The reference for one element of `dtype` from the double `v` (R's NaN for missing).
template <class T>
T reference_element(double v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half{double_to_half_bits(v)};
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16{double_to_bfloat16_bits(v)};
  } else if constexpr (std::is_same_v<T, Float8E4M3FN>) {
    return T{minifloat_from_double(v, minifloat_format(MinifloatKind::kF8E4M3FN))};
  } else if constexpr (std::is_same_v<T, Float8E5M2>) {
    return T{minifloat_from_double(v, minifloat_format(MinifloatKind::kF8E5M2))};
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return {static_cast<float>(v), 0.0f};
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return {v, 0.0};
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
void expect_converted(RVectorType type, DType dtype, int64_t count) {
  std::vector<double> reals(static_cast<size_t>(count));
  std::vector<int32_t> ints(reals.size());
  std::vector<int64_t> longs(reals.size());
  for (int64_t i = 0; i < count; ++i) {
    const bool na = missing_at(i, dtype);
    const double v = source_value(i, dtype);
    const bool to_float = is_floating(dtype) || is_complex(dtype);
    const double whole = to_float ? static_cast<double>(i * 37 % 140001 - 70000) : std::trunc(v);
    reals[i] = na ? r_na_real() : v;
    ints[i] = na ? kRIntegerNA : static_cast<int32_t>(whole);
    longs[i] = na ? kRInteger64NA : static_cast<int64_t>(whole);
  }
  const void* data = type == RVectorType::kDouble      ? static_cast<const void*>(reals.data())
                     : type == RVectorType::kInteger64 ? static_cast<const void*>(longs.data())
                                                       : static_cast<const void*>(ints.data());
  std::vector<T> out(static_cast<size_t>(count));
  convert_from_r({type, data, count}, dtype, out.data(), count);
  for (int64_t i = 0; i < count; ++i) {
    const bool na = missing_at(i, dtype);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double as_double = type == RVectorType::kDouble      ? reals[i]
                             : type == RVectorType::kInteger64 ? (na ? nan : double(longs[i]))
                                                               : (na ? nan : double(ints[i]));
    const T expected = reference_element<T>(as_double);
    ASSERT_EQ(std::memcmp(&out[i], &expected, sizeof(T)), 0)
        << dtype_name(dtype) << " element " << i << " of " << count;
  }
}

TEST(ConvertKernels, EverySourceTypeToEveryDTypeAcrossBlocks) {
  const RVectorType sources[] = {RVectorType::kDouble, RVectorType::kInteger, RVectorType::kLogical,
                                 RVectorType::kInteger64};
  for (DType dtype : kAllDTypes) {
    for (RVectorType type : sources) {
      if (type == RVectorType::kLogical && dtype != DType::kPred && !is_floating(dtype)) continue;
      for (int64_t count : kLengths) {
        dispatch(dtype, [&](auto tag) {
          expect_converted<typename decltype(tag)::type>(type, dtype, count);
        });
      }
    }
  }
}

// What as_array() gives for element `x` of a dtype, computed independently.
template <class T>
auto r_reference(T x, DType dtype) {
  if constexpr (kIsNarrowFloat<T>) {
    return to_double(x);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return std::complex<double>(x.real(), x.imag());
  } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, std::complex<double>>) {
    return static_cast<std::conditional_t<std::is_same_v<T, float>, double, T>>(x);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return x >= uint64_t{1} << 63 ? kRInteger64NA : static_cast<int64_t>(x);  // NA in R
  } else if constexpr (sizeof(T) >= 4 && !std::is_same_v<T, int32_t>) {
    return static_cast<int64_t>(x);
  } else {
    return dtype == DType::kPred ? int32_t{x != 0} : static_cast<int32_t>(x);
  }
}

template <class T>
void expect_read_back(DType dtype, int64_t count) {
  std::vector<T> in(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t pattern = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
    if constexpr (kIsNarrowFloat<T>) {
      using Bits = decltype(T::bits);  // every pattern, NaNs included
      in[i] = T{static_cast<Bits>(pattern >> (64 - 8 * sizeof(Bits)))};
    } else if constexpr (std::is_floating_point_v<T>) {
      in[i] = static_cast<T>(std::ldexp(static_cast<double>(pattern >> 40), -20));
    } else if constexpr (std::is_integral_v<T>) {
      T value;
      std::memcpy(&value, &pattern, sizeof value);
      in[i] = dtype == DType::kPred ? T(pattern >> 63) : value;
    } else {
      in[i] = T(static_cast<float>(i % 1000) / 8, -static_cast<float>(i % 77));
    }
  }
  using Out = decltype(r_reference(T{}, dtype));
  std::vector<Out> out(static_cast<size_t>(count));
  convert_to_r(dtype, in.data(), out.data(), count);
  for (int64_t i = 0; i < count; ++i) {
    const Out expected = r_reference(in[i], dtype);
    ASSERT_EQ(std::memcmp(&out[i], &expected, sizeof(Out)), 0)
        << dtype_name(dtype) << " element " << i << " of " << count;
  }
}

TEST(ConvertKernels, EveryDTypeBackToRAcrossBlocks) {
  for (DType dtype : kAllDTypes) {
    for (int64_t count : kLengths) {
      dispatch(dtype,
               [&](auto tag) { expect_read_back<typename decltype(tag)::type>(dtype, count); });
    }
  }
}

}  // namespace
}  // namespace ndbuf
