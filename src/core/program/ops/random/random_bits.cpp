// The block functions and XLA's layout of counters over the output (see random_bits.hpp).
#include "program/ops/random/random_bits.hpp"

#include <cstring>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/axis_extent.hpp"

namespace ndbuf::program {
namespace {

// Blocks are independent (counter-based generators), so loops run in parallel; a block costs
// about as much as copying this many bytes, which decides when threads start.
constexpr int64_t kBytesPerBlock = 64;

uint32_t rotate_left(uint32_t v, int bits) { return (v << bits) | (v >> (32 - bits)); }
uint32_t low_word(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t high_word(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
uint64_t join_words(uint32_t low, uint32_t high) {
  return static_cast<uint64_t>(low) | (static_cast<uint64_t>(high) << 32);
}

// Writes the low itemsize bytes of `value` as element `index` of a dense output.
void store(void* out, int64_t index, uint64_t value, size_t itemsize) {
  auto* bytes = static_cast<unsigned char*>(out);
  switch (itemsize) {
    case 1: {
      const auto v = static_cast<uint8_t>(value);
      std::memcpy(bytes + index, &v, 1);
      break;
    }
    case 2: {
      const auto v = static_cast<uint16_t>(value);
      std::memcpy(bytes + 2 * index, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<uint32_t>(value);
      std::memcpy(bytes + 4 * index, &v, 4);
      break;
    }
    default:
      std::memcpy(bytes + 8 * index, &value, 8);
  }
}

// Threefry, elements of 32 bits or fewer. XLA halves the shape along its first even axis (or,
// when none is even, its first longest axis): the counter of element i along that axis is the
// state plus the row-major index of (..., i / 2, ...) in the halved shape, and i % 2 picks the
// word of that counter's block. The state advances by the size of the halved shape.
uint64_t threefry_narrow(uint64_t key, uint64_t start, const Shape& shape, void* out,
                         size_t itemsize) {
  size_t axis = 0;
  bool even = false;
  for (size_t k = 0; k < shape.size() && !even; ++k) {
    if (shape[k] % 2 == 0) axis = k, even = true;
  }
  for (size_t k = 0; k < shape.size() && !even; ++k) {
    if (shape[k] > shape[axis]) axis = k;
  }
  const AxisExtent extent = axis_extent(shape, axis);
  const int64_t outer = extent.outer, length = extent.length, inner = extent.inner;
  const int64_t half = (length + 1) / 2;
  const std::array<uint32_t, 2> k{low_word(key), high_word(key)};
  const int64_t counters = outer * half * inner;
  for_each_block(counters, kBytesPerBlock, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const int64_t o = j / (half * inner), h = j / inner % half, i = j % inner;
      const uint64_t counter = start + static_cast<uint64_t>(j);
      const auto block = threefry2x32({low_word(counter), high_word(counter)}, k);
      const int64_t first = (o * length + 2 * h) * inner + i;
      store(out, first, block[0], itemsize);
      if (2 * h + 1 < length) store(out, first + inner, block[1], itemsize);
    }
  });
  return start + static_cast<uint64_t>(counters);
}

// Threefry, 64-bit elements: element i (row-major) is the block of counter state + i, its
// words joined low first; the state advances by the element count.
uint64_t threefry_wide(uint64_t key, uint64_t start, int64_t n, void* out) {
  const std::array<uint32_t, 2> k{low_word(key), high_word(key)};
  for_each_block(n, kBytesPerBlock, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const uint64_t counter = start + static_cast<uint64_t>(i);
      const auto block = threefry2x32({low_word(counter), high_word(counter)}, k);
      store(out, i, join_words(block[0], block[1]), 8);
    }
  });
  return start + static_cast<uint64_t>(n);
}

struct Counter128 {
  uint64_t low;
  uint64_t high;
};

Counter128 advance(Counter128 c, uint64_t by) {
  const uint64_t low = c.low + by;
  return {low, low < c.low ? c.high + 1 : c.high};
}

// Philox: block b takes counter + b (128-bit); its four words are elements 4b..4b+3, or, for
// 64-bit elements, words (0, 1) and (2, 3) joined are elements 2b and 2b+1. The counter
// advances by the number of blocks.
Counter128 philox(uint64_t key, Counter128 start, int64_t n, void* out, size_t itemsize) {
  const std::array<uint32_t, 2> k{low_word(key), high_word(key)};
  const int64_t per_block = itemsize == 8 ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for_each_block(blocks, kBytesPerBlock, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const Counter128 c = advance(start, static_cast<uint64_t>(b));
      const auto w =
          philox4x32({low_word(c.low), high_word(c.low), low_word(c.high), high_word(c.high)}, k);
      for (int64_t j = 0; j < per_block && b * per_block + j < n; ++j) {
        const uint64_t value = itemsize == 8 ? join_words(w[2 * j], w[2 * j + 1]) : w[j];
        store(out, b * per_block + j, value, itemsize);
      }
    }
  });
  return advance(start, static_cast<uint64_t>(blocks));
}

}  // namespace

std::optional<RngAlgorithm> rng_algorithm_named(std::string_view name) {
  if (name == "DEFAULT") return RngAlgorithm::kDefault;
  if (name == "THREE_FRY") return RngAlgorithm::kThreeFry;
  if (name == "PHILOX") return RngAlgorithm::kPhilox;
  return std::nullopt;
}

std::array<uint32_t, 2> threefry2x32(std::array<uint32_t, 2> x, std::array<uint32_t, 2> key) {
  static constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  // Five groups of four rounds, the key schedule injected after each group.
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r : kRotations[group % 2]) {
      x[0] += x[1];
      x[1] = rotate_left(x[1], r) ^ x[0];
    }
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + group + 1;
  }
  return x;
}

std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  constexpr uint64_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kMultiplier0 * x[0];
    const uint64_t p1 = kMultiplier1 * x[2];
    x = {high_word(p1) ^ x[1] ^ key[0], low_word(p1), high_word(p0) ^ x[3] ^ key[1], low_word(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

const char* rng_problem(RngAlgorithm algorithm, int64_t state_size, DType dtype) {
  if (algorithm == RngAlgorithm::kThreeFry && state_size != 2) {
    return "THREE_FRY needs an initial state of 2 elements";
  }
  if (algorithm != RngAlgorithm::kThreeFry && state_size != 2 && state_size != 3) {
    return algorithm == RngAlgorithm::kPhilox
               ? "PHILOX needs an initial state of 2 or 3 elements"
               : "DEFAULT (PHILOX) needs an initial state of 2 or 3 elements";
  }
  if (dtype == DType::kPred || is_complex(dtype)) {
    return "the output must have an integer or floating-point element type";
  }
  return nullptr;
}

RandomBits rng_bit_generator(RngAlgorithm algorithm, const Tensor& state, DType dtype,
                             const Shape& shape) {
  if (state.dtype() != DType::kU64 || state.shape().size() != 1) {
    fail(ErrorKind::kInvalidArgument, "rng_bit_generator needs a 1-d ui64 state.");
  }
  const char* problem = rng_problem(algorithm, state.shape()[0], dtype);
  if (problem != nullptr) fail(ErrorKind::kInvalidArgument, std::string(problem) + ".");
  const Tensor dense = make_dense(state, Order::kRowMajor);
  std::vector<uint64_t> s(static_cast<size_t>(dense.numel()));
  std::memcpy(s.data(), dense.data(), s.size() * sizeof(uint64_t));
  Tensor bits = Tensor::allocate(dtype, shape, Order::kRowMajor);
  const size_t width = itemsize(dtype);
  if (algorithm == RngAlgorithm::kThreeFry) {
    s[1] = width == 8 ? threefry_wide(s[0], s[1], bits.numel(), bits.data())
                      : threefry_narrow(s[0], s[1], shape, bits.data(), width);
  } else {
    // A 2-element state holds the key and the counter's low half; the key is its high half.
    const bool three = s.size() == 3;
    const Counter128 end =
        philox(s[0], {s[1], three ? s[2] : s[0]}, bits.numel(), bits.data(), width);
    s[1] = end.low;
    if (three) s[2] = end.high;
  }
  Tensor next = Tensor::allocate(DType::kU64, state.shape(), Order::kRowMajor);
  std::memcpy(next.data(), s.data(), s.size() * sizeof(uint64_t));
  return {next, bits};
}

}  // namespace ndbuf::program
