// A stable least-significant-digit radix sort of positions by unsigned keys: 11-bit digits
// (three passes for 32-bit keys), digits the same in every key skipped. The keys are cut into
// `parts` contiguous runs; each pass counts every run's digits and scatters every run through
// its own offsets (run p's elements of a digit follow those of runs before p), so runs go in
// parallel and the result is the one stable order whatever the number of runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {

namespace radix_detail {

constexpr unsigned kBits = 11, kBuckets = 1u << kBits;
using Histogram = std::array<uint32_t, kBuckets>;

// Runs body(p) for every run p < parts, in parallel when the data is large.
template <class Body>
void for_each_run(int parts, int64_t n, int64_t bytes_per_element, Body&& body) {
  const int64_t per_run = std::max<int64_t>(1, n / parts);
  for_each_block(
      parts, per_run * bytes_per_element,
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) body(static_cast<int>(p));
      },
      per_run);
}

inline size_t run_begin(size_t n, int parts, int p) { return n * p / parts; }

// Every digit's histogram per run (`first`, one entry per run), from one read of the keys in
// their first order; returns the digits that differ between keys (the passes to make).
template <class U, size_t kDigits>
std::vector<unsigned> digits_to_sort(const std::vector<U>& keys, int parts,
                                     std::vector<std::array<Histogram, kDigits>>& first) {
  const size_t n = keys.size();
  for_each_run(parts, n, sizeof(U), [&](int p) {
    for (auto& h : first[p]) h.fill(0);
    for (size_t i = run_begin(n, parts, p); i < run_begin(n, parts, p + 1); ++i) {
      for (unsigned d = 0; d < kDigits; ++d)
        ++first[p][d][(keys[i] >> (d * kBits)) & (kBuckets - 1)];
    }
  });
  std::vector<unsigned> passes;
  for (unsigned d = 0; d < kDigits && n > 0; ++d) {
    uint32_t same = 0;  // elements with the first key's digit d
    for (int p = 0; p < parts; ++p) same += first[p][d][(keys[0] >> (d * kBits)) & (kBuckets - 1)];
    if (same != n) passes.push_back(d);
  }
  return passes;
}

// Counts per run -> where each run's first element of each digit goes: by digit, then by run.
inline void offsets_by_digit_then_run(std::vector<Histogram>& count) {
  uint32_t start = 0;
  for (unsigned b = 0; b < kBuckets; ++b) {
    for (Histogram& run : count) {
      const uint32_t here = run[b];
      run[b] = start;
      start += here;
    }
  }
}

}  // namespace radix_detail

// perm = positions 0..n-1 ordered by keys[p] ascending, ties in position order. n < 2^32.
// `keys` is left in an unspecified order. parts >= 1.
template <class U>
void radix_order(std::vector<U>& keys, std::vector<int64_t>& perm, int parts = 1) {
  static_assert(std::is_unsigned_v<U>);
  using radix_detail::Histogram;
  using radix_detail::kBits;
  using radix_detail::kBuckets;
  constexpr unsigned kDigits = (sizeof(U) * 8 + kBits - 1) / kBits;
  constexpr int64_t kMoveBytes = 2 * static_cast<int64_t>(sizeof(U) + sizeof(uint32_t));
  const size_t n = keys.size();
  parts = static_cast<int>(std::clamp<size_t>(n / 4096, 1, std::max(parts, 1)));
  const auto begin = [&](int p) { return radix_detail::run_begin(n, parts, p); };
  std::vector<std::array<Histogram, kDigits>> first(parts);
  const std::vector<unsigned> passes = radix_detail::digits_to_sort(keys, parts, first);
  perm.resize(n);
  if (passes.empty()) {
    for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(i);
    return;
  }
  std::vector<uint32_t> index, index_out(passes.size() > 1 ? n : 0);
  std::vector<U> keys_out(passes.size() > 1 ? n : 0);
  std::vector<Histogram> count(parts);
  for (size_t k = 0; k < passes.size(); ++k) {
    const unsigned shift = passes[k] * kBits;
    const bool is_first = k == 0, is_last = k + 1 == passes.size();
    if (is_first) {
      for (int p = 0; p < parts; ++p) count[p] = first[p][passes[k]];
    } else {
      radix_detail::for_each_run(parts, n, sizeof(U), [&](int p) {
        count[p].fill(0);
        for (size_t i = begin(p); i < begin(p + 1); ++i)
          ++count[p][(keys[i] >> shift) & (kBuckets - 1)];
      });
    }
    radix_detail::offsets_by_digit_then_run(count);
    radix_detail::for_each_run(parts, n, kMoveBytes, [&](int p) {
      Histogram& at = count[p];
      for (size_t i = begin(p); i < begin(p + 1); ++i) {
        const uint32_t to = at[(keys[i] >> shift) & (kBuckets - 1)]++;
        const uint32_t from = is_first ? static_cast<uint32_t>(i) : index[i];
        if (is_last) {
          perm[to] = from;
        } else {
          keys_out[to] = keys[i];
          index_out[to] = from;
        }
      }
    });
    if (!is_last) {
      keys.swap(keys_out);
      if (is_first) index.resize(n);
      index.swap(index_out);
    }
  }
}

}  // namespace ndbuf::program
