// The check the optimisation tests share: two runs of one program (optimised and plain) give
// the same results, byte for byte, except that a NaN may differ from a NaN in sign and payload.
// IEEE 754 leaves open which NaN an operation on two NaNs returns, and compilers treat float
// addition and multiplication as commutative (and may turn -x + y into y - x): NaN + NaN
// then gives the other operand's NaN. R says the same of NA and NaN (?NA).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/half.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program::testing {

// Whether the float part at `p`, of `itemsize` bytes, is a NaN (f16 and bf16 told apart by
// `dtype`).
inline bool nan_bits(const unsigned char* p, size_t itemsize, DType dtype) {
  if (itemsize == 2) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return std::isnan(dtype == DType::kBF16 ? bfloat16_bits_to_double(bits)
                                            : half_bits_to_double(bits));
  }
  if (itemsize == 4) {
    float v;
    std::memcpy(&v, p, 4);
    return std::isnan(v);
  }
  double v;
  std::memcpy(&v, p, 8);
  return std::isnan(v);
}

// The first element of two dense tensors of one dtype whose bytes differ, a complex element
// counting as different where either part does without both being NaN; -1 where none does.
inline int64_t first_difference(const Tensor& x, const Tensor& y) {
  const auto* a = static_cast<const unsigned char*>(x.data());
  const auto* b = static_cast<const unsigned char*>(y.data());
  const DType dtype = x.dtype();
  const bool floats = is_floating(dtype) || is_complex(dtype);
  const size_t part = is_complex(dtype) ? itemsize(dtype) / 2 : itemsize(dtype);
  const int64_t parts = static_cast<int64_t>(x.nbytes() / part);
  for (int64_t i = 0; i < parts; ++i) {
    const unsigned char *u = a + i * part, *v = b + i * part;
    if (std::memcmp(u, v, part) == 0) continue;
    if (floats && part >= 2 && nan_bits(u, part, dtype) && nan_bits(v, part, dtype)) continue;
    return is_complex(dtype) ? i / 2 : i;
  }
  return -1;
}

// Expects as many results, each of one dtype and shape and with the same bytes read row-major;
// `runs` names the two runs in a failure ("fused and unfused").
inline void expect_same_results(const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                                const std::string& runs) {
  ASSERT_EQ(a.size(), b.size()) << runs;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].dtype(), b[k].dtype()) << "result " << k << ", " << runs;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << "result " << k << ", " << runs;
    const Tensor x = make_dense(a[k], Order::kRowMajor);
    const Tensor y = make_dense(b[k], Order::kRowMajor);
    EXPECT_EQ(-1, first_difference(x, y))
        << "result " << k << " differs (at that element) between " << runs;
  }
}

}  // namespace ndbuf::program::testing
