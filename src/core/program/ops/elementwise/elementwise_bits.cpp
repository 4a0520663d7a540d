// Bit-level kernels: bitcast_convert (pred counts as 1 bit, element k of a pred row being bit
// k, least significant first; other types are their little-endian bytes) and reduce_precision
// (XLA's rounding of the fraction, then overflow to Inf / flush to zero of the exponent).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"

namespace ndbuf::program {
namespace {

int bit_width(DType d) { return d == DType::kPred ? 1 : static_cast<int>(itemsize(d) * 8); }

[[noreturn]] void fail_bitcast(const Tensor& x, DType to, const Shape& shape, const char* why) {
  fail(ErrorKind::kInvalidArgument,
       "stablehlo.bitcast_convert cannot turn " + std::string(dtype_name(x.dtype())) +
           shape_to_tuple(x.shape()) + " into " + std::string(dtype_name(to)) +
           shape_to_tuple(shape) + ": " + why + ".");
}

}  // namespace

const char* bitcast_problem(DType from, const Shape& in, DType to, const Shape& shape) {
  const int from_bits = bit_width(from);
  const int to_bits = bit_width(to);
  if (is_complex(from) != is_complex(to)) return "complex types only bitcast to complex types";
  if (from_bits == to_bits) return shape == in ? nullptr : "equal widths keep the shape";
  const Shape& longer = from_bits > to_bits ? shape : in;
  const Shape& shorter = from_bits > to_bits ? in : shape;
  const int64_t ratio = from_bits > to_bits ? from_bits / to_bits : to_bits / from_bits;
  const bool ok = longer.size() == shorter.size() + 1 &&
                  std::equal(shorter.begin(), shorter.end(), longer.begin()) &&
                  longer.back() == ratio;
  if (ok) return nullptr;
  return from_bits > to_bits ? "a narrower result type adds a last axis of the width ratio"
                             : "a wider result type removes a last axis of the width ratio";
}

namespace {

// The spec's shape rules (constraint C1) and its complex rule (C2).
void check_bitcast(const Tensor& x, DType to, const Shape& shape) {
  const char* why = bitcast_problem(x.dtype(), x.shape(), to, shape);
  if (why != nullptr) fail_bitcast(x, to, shape, why);
}

// Packs pred elements (0 / 1) into little-endian bytes, bit k of the stream from element k.
void pack_bits(const uint8_t* pred, int64_t count, uint8_t* bytes) {
  std::memset(bytes, 0, static_cast<size_t>((count + 7) / 8));
  for (int64_t k = 0; k < count; ++k) {
    bytes[k / 8] |= static_cast<uint8_t>((pred[k] != 0) << (k % 8));
  }
}

void unpack_bits(const uint8_t* bytes, int64_t count, uint8_t* pred) {
  for (int64_t k = 0; k < count; ++k) pred[k] = (bytes[k / 8] >> (k % 8)) & 1;
}

// Rounds the float with the given bit layout (`exp_bits` exponent, `mant_bits` fraction bits
// in the low bits of `bits`) to `exponent_bits` / `mantissa_bits`, keeping the layout.
uint64_t reduce_bits(uint64_t bits, int exp_bits, int mant_bits, int exponent_bits,
                     int mantissa_bits) {
  const uint64_t sign_mask = uint64_t{1} << (exp_bits + mant_bits);
  const uint64_t exp_mask = ((uint64_t{1} << exp_bits) - 1) << mant_bits;
  const uint64_t fraction_mask = (uint64_t{1} << mant_bits) - 1;
  const bool is_nan = (bits & exp_mask) == exp_mask && (bits & fraction_mask) != 0;
  if (is_nan) {
    // A NaN stays itself unless no fraction bit is left to mark it: then it becomes Inf.
    return mantissa_bits > 0 ? bits : (bits & sign_mask) | exp_mask;
  }
  uint64_t x = bits;
  if (mantissa_bits < mant_bits) {
    // Round to nearest, ties to even, at the last kept fraction bit; a carry moves into the
    // exponent, which is how rounding reaches the next binade or Inf.
    const int dropped = mant_bits - mantissa_bits;
    const uint64_t last_kept = uint64_t{1} << dropped;
    const uint64_t bias = (last_kept >> 1) - 1 + ((x & last_kept) >> dropped);
    x = (x + bias) & ~(last_kept - 1);
  }
  if (exponent_bits < exp_bits) {
    const int64_t bias = (int64_t{1} << (exp_bits - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const auto exponent = static_cast<int64_t>((x & exp_mask) >> mant_bits);
    const uint64_t sign = x & sign_mask;
    if (exponent > bias + reduced_bias) return sign | exp_mask;  // overflow to Inf
    if (exponent <= bias - reduced_bias) return sign;            // underflow to zero
  }
  return x;
}

}  // namespace

Tensor bitcast_convert(const Tensor& x, DType to, const Shape& result_shape) {
  check_bitcast(x, to, result_shape);
  const Tensor dense = make_dense(to_host(x), Order::kRowMajor);
  Tensor out = Tensor::allocate(to, result_shape, Order::kRowMajor);
  const auto* src = static_cast<const uint8_t*>(dense.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const int64_t bits = dense.numel() * bit_width(x.dtype());
  if (x.dtype() == to) {
    std::memcpy(dst, src, static_cast<size_t>(dense.nbytes()));
  } else if (x.dtype() == DType::kPred) {
    pack_bits(src, bits, dst);
  } else if (to == DType::kPred) {
    unpack_bits(src, bits, dst);
  } else {
    std::memcpy(dst, src, static_cast<size_t>(dense.nbytes()));  // little-endian hosts
  }
  return out;
}

Tensor reduce_precision(const Tensor& x, int exponent_bits, int mantissa_bits,
                        ResultMemory& memory) {
  if (!is_floating(x.dtype())) detail::fail_dtype("stablehlo.reduce_precision", x.dtype());
  if (exponent_bits < 1 || mantissa_bits < 0) {
    fail(ErrorKind::kInvalidArgument,
         "stablehlo.reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, not " +
             std::to_string(exponent_bits) + " and " + std::to_string(mantissa_bits) + ".");
  }
  const auto run = [&](auto element, auto word, int exp_bits, int mant_bits) {
    using T = decltype(element);
    using W = decltype(word);
    const auto f = [=](T v) {
      W w;
      std::memcpy(&w, &v, sizeof w);
      w = static_cast<W>(reduce_bits(w, exp_bits, mant_bits, exponent_bits, mantissa_bits));
      T r;
      std::memcpy(&r, &w, sizeof r);
      return r;
    };
    Tensor out = memory.take(x.dtype(), x.shape());
    detail::map_into<T>(out, f, false, detail::read_operand<T>(x, x.shape()));
    return out;
  };
  // The 8-bit floats are not IEEE-shaped (E4M3FN has no Inf): reduced as the doubles they
  // are exactly, then rounded back once.
  const auto run_through_double = [&](auto element) {
    using T = decltype(element);
    const auto f = [=](T v) {
      const double d = to_double(v);
      uint64_t w;
      std::memcpy(&w, &d, sizeof w);
      w = reduce_bits(w, 11, 52, exponent_bits, mantissa_bits);
      double r;
      std::memcpy(&r, &w, sizeof r);
      return narrow_float_from_double<T>(r);
    };
    Tensor out = memory.take(x.dtype(), x.shape());
    detail::map_into<T>(out, f, false, detail::read_operand<T>(x, x.shape()));
    return out;
  };
  switch (x.dtype()) {
    case DType::kF8E4M3FN:
      return run_through_double(Float8E4M3FN{});
    case DType::kF8E5M2:
      return run_through_double(Float8E5M2{});
    case DType::kF16:
      return run(Half{}, uint16_t{}, 5, 10);
    case DType::kBF16:
      return run(BFloat16{}, uint16_t{}, 8, 7);
    case DType::kF32:
      return run(float{}, uint32_t{}, 8, 23);
    default:
      return run(double{}, uint64_t{}, 11, 52);
  }
}

Tensor reduce_precision(const Tensor& x, int exponent_bits, int mantissa_bits) {
  ResultMemory fresh;
  return reduce_precision(x, exponent_bits, mantissa_bits, fresh);
}

}  // namespace ndbuf::program
