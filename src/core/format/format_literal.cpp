// StableHLO literal spellings of elements (see format_literal.hpp).
#include "ndbuf/format/format_literal.hpp"

#include <cmath>
#include <complex>
#include <cstdio>
#include <type_traits>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

// The hex spellings of NaN and the infinities, and the decimals after the point (significant
// digits that round-trip the format, less the one before the point).
struct LiteralFloat {
  const char* nan;
  const char* positive_infinity;
  const char* negative_infinity;
  int decimals;
};

constexpr LiteralFloat kF64Literal{"0x7FF8000000000000", "0x7FF0000000000000", "0xFFF0000000000000",
                                   16};
constexpr LiteralFloat kF32Literal{"0x7FC00000", "0x7F800000", "0xFF800000", 8};
constexpr LiteralFloat kF16Literal{"0x7E00", "0x7C00", "0xFC00", 4};
constexpr LiteralFloat kBF16Literal{"0x7FC0", "0x7F80", "0xFF80", 3};
// f8E4M3FN has no infinities (its spellings are never used).
constexpr LiteralFloat kF8E4M3FNLiteral{"0x7F", "", "", 2};
constexpr LiteralFloat kF8E5M2Literal{"0x7E", "0x7C", "0xFC", 1};

std::string float_literal(double value, const LiteralFloat& spelling) {
  if (std::isnan(value)) return spelling.nan;
  if (std::isinf(value)) {
    return value > 0 ? spelling.positive_infinity : spelling.negative_infinity;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.*e", spelling.decimals, value);
  return text;
}

template <class T>
std::string element_literal(DType dtype, T value) {
  if constexpr (std::is_same_v<T, double>) {
    return float_literal(value, kF64Literal);
  } else if constexpr (std::is_same_v<T, float>) {
    return float_literal(value, kF32Literal);
  } else if constexpr (std::is_same_v<T, Half>) {
    return float_literal(to_double(value), kF16Literal);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return float_literal(to_double(value), kBF16Literal);
  } else if constexpr (std::is_same_v<T, Float8E4M3FN>) {
    return float_literal(to_double(value), kF8E4M3FNLiteral);
  } else if constexpr (std::is_same_v<T, Float8E5M2>) {
    return float_literal(to_double(value), kF8E5M2Literal);
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    return "(" + element_literal(dtype, value.real()) + ", " +
           element_literal(dtype, value.imag()) + ")";
  } else {
    if (dtype == DType::kPred) return value != 0 ? "true" : "false";
    return std::to_string(value);
  }
}

}  // namespace

std::vector<std::string> format_literal_elements(const Tensor& tensor) {
  const Tensor dense = make_dense(tensor, Order::kColumnMajor);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(dense.numel()));
  dispatch(dense.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* values = static_cast<const T*>(dense.data());
    for (int64_t k = 0; k < dense.numel(); ++k) {
      out.push_back(element_literal(tag.value, values[k]));
    }
  });
  return out;
}

}  // namespace ndbuf
