// chlo.mulhi over every integer dtype (integer_mulhi.hpp).
#include "program/ops/elementwise/integer_mulhi.hpp"

#include <cstdint>
#include <type_traits>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {
namespace {

// The high 64 bits of the 128-bit product of two unsigned 64-bit values, from 32-bit halves.
uint64_t high_product(uint64_t a, uint64_t b) {
  const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t middle = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
  return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}

template <class T>
T high_half(T a, T b) {
  if constexpr (sizeof(T) < 8) {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return static_cast<T>((static_cast<Wide>(a) * static_cast<Wide>(b)) >> (8 * sizeof(T)));
  } else {
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    uint64_t high = high_product(ua, ub);
    // Two's complement: a signed operand below zero contributes -2^64 times the other one.
    if constexpr (std::is_signed_v<T>) {
      if (a < 0) high -= ub;
      if (b < 0) high -= ua;
    }
    return static_cast<T>(high);
  }
}

}  // namespace

Tensor mulhi(const Tensor& lhs, const Tensor& rhs) {
  if (lhs.dtype() != rhs.dtype() || lhs.shape() != rhs.shape() || !is_integer(lhs.dtype())) {
    fail(ErrorKind::kInvalidArgument, "chlo.mulhi needs integer operands of one type.");
  }
  const Tensor a = make_dense(lhs, Order::kRowMajor);
  const Tensor b = make_dense(rhs, Order::kRowMajor);
  Tensor out = Tensor::allocate(lhs.dtype(), lhs.shape(), Order::kRowMajor);
  dispatch(lhs.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* x = static_cast<const T*>(a.data());
      const T* y = static_cast<const T*>(b.data());
      T* z = static_cast<T*>(out.data());
      for_each_block(out.numel(), 3 * sizeof(T), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) z[i] = high_half(x[i], y[i]);
      });
    }
  });
  return out;
}

}  // namespace ndbuf::program
