// A stable least-significant-digit radix sort of positions by unsigned keys (8-bit digits;
// digits the same in every key are skipped).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ndbuf::program {

// perm = positions 0..n-1 ordered by keys[p] ascending, ties in position order.
template <class U>
void radix_order(std::vector<U>& keys, std::vector<int64_t>& perm) {
  static_assert(std::is_unsigned_v<U>);
  const size_t n = keys.size();
  std::vector<uint32_t> index(n), index_out(n);
  std::vector<U> keys_out(n);
  for (size_t i = 0; i < n; ++i) index[i] = static_cast<uint32_t>(i);
  for (unsigned shift = 0; shift < sizeof(U) * 8; shift += 8) {
    size_t count[256] = {};
    for (size_t i = 0; i < n; ++i) ++count[(keys[i] >> shift) & 0xff];
    if (count[(keys[0] >> shift) & 0xff] == n) continue;  // one digit: nothing moves
    size_t start = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = start;
      start += here;
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t at = count[(keys[i] >> shift) & 0xff]++;
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
