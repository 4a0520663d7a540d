// A stable least-significant-digit radix sort of positions by unsigned keys: 11-bit digits
// (three passes for 32-bit keys), every digit's histogram from one read of the keys, digits
// the same in every key skipped.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace ndbuf::program {

// perm = positions 0..n-1 ordered by keys[p] ascending, ties in position order. n < 2^32.
template <class U>
void radix_order(std::vector<U>& keys, std::vector<int64_t>& perm) {
  static_assert(std::is_unsigned_v<U>);
  constexpr unsigned kBits = 11, kBuckets = 1u << kBits;
  constexpr unsigned kDigits = (sizeof(U) * 8 + kBits - 1) / kBits;
  const size_t n = keys.size();
  std::vector<std::array<uint32_t, kBuckets>> count(kDigits);
  for (auto& c : count) c.fill(0);
  for (size_t i = 0; i < n; ++i) {
    for (unsigned d = 0; d < kDigits; ++d) ++count[d][(keys[i] >> (d * kBits)) & (kBuckets - 1)];
  }
  std::vector<uint32_t> index(n), index_out(n);
  std::vector<U> keys_out(n);
  for (size_t i = 0; i < n; ++i) index[i] = static_cast<uint32_t>(i);
  for (unsigned d = 0; d < kDigits && n > 0; ++d) {
    const unsigned shift = d * kBits;
    auto& c = count[d];
    if (c[(keys[0] >> shift) & (kBuckets - 1)] == n) continue;  // one digit: nothing moves
    uint32_t start = 0;
    for (uint32_t& bucket : c) {
      const uint32_t here = bucket;
      bucket = start;
      start += here;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t at = c[(keys[i] >> shift) & (kBuckets - 1)]++;
      keys_out[at] = keys[i];
      index_out[at] = index[i];
    }
    keys.swap(keys_out);
    index.swap(index_out);
  }
  perm.resize(n);
  for (size_t i = 0; i < n; ++i) perm[i] = index[i];
}

}  // namespace ndbuf::program
