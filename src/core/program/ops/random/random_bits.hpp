// stablehlo.rng_bit_generator: the counter-based generators of Salmon et al. (SC 2011) laid
// out over the state and the output exactly as XLA's CPU backend lays them out, so a program
// gives the bits XLA gives for the same state, shape and element type.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// DEFAULT is PHILOX, the algorithm XLA's CPU compiler substitutes for it.
enum class RngAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };

// "DEFAULT", "THREE_FRY", "PHILOX"; nullopt for anything else.
std::optional<RngAlgorithm> rng_algorithm_named(std::string_view name);

// Threefry-2x32 with 20 rounds: the block function over a 64-bit counter split in two words.
std::array<uint32_t, 2> threefry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);
// Philox-4x32 with 10 rounds over a 128-bit counter in four words (least significant first).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// Why a ui64 state of `state_size` elements and an output of `dtype` cannot be used with
// `algorithm`, or nullptr when they can (THREE_FRY needs 2 elements, PHILOX and DEFAULT 2 or
// 3; the output is an integer or float type other than pred).
const char* rng_problem(RngAlgorithm algorithm, int64_t state_size, DType dtype);

struct RandomBits {
  Tensor state;  // ui64, the shape of the initial state
  Tensor bits;   // `dtype`, `shape`, dense row-major
};

// The output state and the random bits. Elements narrower than 32 bits hold the low bits of
// the 32-bit word XLA draws for them; float elements hold the bits of the unsigned integer of
// their width (XLA's CPU backend itself only returns integer types).
RandomBits rng_bit_generator(RngAlgorithm algorithm, const Tensor& state, DType dtype,
                             const Shape& shape);

}  // namespace ndbuf::program
