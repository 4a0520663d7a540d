// A stable least-significant-digit radix sort of positions by unsigned keys: 11-bit digits
// (three passes for 32-bit keys), digits the same in every key skipped; each key travels with
// its position (radix_detail::Item). The keys are cut into `parts` contiguous runs; each pass
// counts every run's digits and scatters every run through its own offsets (run p's elements of
// a digit follow those of runs before p), so runs go in parallel and the result is the one
// stable order whatever the number of runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {

namespace radix_detail {

constexpr unsigned kBits = 11, kBuckets = 1u << kBits;
using Histogram = std::array<uint32_t, kBuckets>;

inline size_t run_begin(size_t n, int parts, int p) { return n * p / parts; }

// Runs body(p, begin, end) for every run p < parts, elements [begin, end), in parallel when the
// data is large. The bounds are locals of the body: a bound it read through `parts` would be
// reloaded every iteration of a loop that increments uint32_t counts (they may alias an int).
template <class Body>
void for_each_run(int parts, size_t n, int64_t bytes_per_element, Body&& body) {
  const auto per_run = std::max<int64_t>(1, static_cast<int64_t>(n) / parts);
  for_each_block(
      parts, per_run * bytes_per_element,
      [&](int64_t first, int64_t last) {
        for (auto p = static_cast<int>(first); p < last; ++p) {
          body(p, run_begin(n, parts, p), run_begin(n, parts, p + 1));
        }
      },
      per_run);
}

// Every digit's histogram per run (`first`, one entry per run), from one read of the keys in
// their first order; returns the digits that differ between keys (the passes to make).
template <class U, size_t kDigits>
std::vector<unsigned> digits_to_sort(const std::vector<U>& keys, int parts,
                                     std::vector<std::array<Histogram, kDigits>>& first) {
  const size_t n = keys.size();
  for_each_run(parts, n, sizeof(U), [&](int p, size_t begin, size_t end) {
    for (auto& h : first[p]) h.fill(0);
    for (size_t i = begin; i < end; ++i) {
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

// One element in flight: its key and its first position, moved together by every pass (one
// write stream per bucket, which is what keeps a 2048-bucket scatter in cache). A key of up to
// 32 bits shares one word with its position.
template <class U, bool kPacked = (sizeof(U) <= 4)>
struct Item {
  uint64_t bits;
  static Item of(U key, size_t position) { return {uint64_t{key} << 32 | position}; }
  U key() const { return static_cast<U>(bits >> 32); }
  uint32_t position() const { return static_cast<uint32_t>(bits); }
};
template <class U>
struct Item<U, false> {
  U key_bits;
  uint32_t first;
  static Item of(U key, size_t position) { return {key, static_cast<uint32_t>(position)}; }
  U key() const { return key_bits; }
  uint32_t position() const { return first; }
};

// One pass: every run's items (item_at(i)) scattered by their digit at `shift` through the
// run's offsets.
template <class U, class ItemAt>
void scatter_pass(int parts, size_t n, unsigned shift, std::vector<Histogram>& offsets,
                  ItemAt&& item_at, Item<U>* out) {
  for_each_run(parts, n, 2 * sizeof(Item<U>), [&](int p, size_t begin, size_t end) {
    Histogram& at = offsets[p];
    for (size_t i = begin; i < end; ++i) {
      const Item<U> item = item_at(i);
      out[at[(item.key() >> shift) & (kBuckets - 1)]++] = item;
    }
  });
}

}  // namespace radix_detail

// perm = positions 0..n-1 ordered by keys[p] ascending, ties in position order. n < 2^32.
// parts >= 1.
template <class U>
void radix_order(const std::vector<U>& keys, std::vector<int64_t>& perm, int parts = 1) {
  static_assert(std::is_unsigned_v<U>);
  using radix_detail::Histogram;
  using radix_detail::kBits;
  using radix_detail::kBuckets;
  using Item = radix_detail::Item<U>;
  constexpr unsigned kDigits = (sizeof(U) * 8 + kBits - 1) / kBits;
  const size_t n = keys.size();
  parts = static_cast<int>(std::clamp<size_t>(n / 4096, 1, std::max(parts, 1)));
  std::vector<std::array<Histogram, kDigits>> first(parts);
  const std::vector<unsigned> passes = radix_detail::digits_to_sort(keys, parts, first);
  perm.resize(n);
  if (passes.empty()) {
    for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(i);
    return;
  }
  // Left uninitialised: every pass writes each item once.
  std::unique_ptr<Item[]> items(new Item[n]), out(new Item[n]);
  std::vector<Histogram> count(parts);
  for (size_t k = 0; k < passes.size(); ++k) {
    const unsigned shift = passes[k] * kBits;
    if (k == 0 || parts == 1) {  // a digit's counts in one run do not depend on the order
      for (int p = 0; p < parts; ++p) count[p] = first[p][passes[k]];
    } else {
      radix_detail::for_each_run(parts, n, sizeof(Item), [&](int p, size_t begin, size_t end) {
        count[p].fill(0);
        for (size_t i = begin; i < end; ++i) ++count[p][(items[i].key() >> shift) & (kBuckets - 1)];
      });
    }
    radix_detail::offsets_by_digit_then_run(count);
    if (k == 0) {
      radix_detail::scatter_pass<U>(
          parts, n, shift, count, [&](size_t i) { return Item::of(keys[i], i); }, out.get());
    } else {
      radix_detail::scatter_pass<U>(
          parts, n, shift, count, [&](size_t i) { return items[i]; }, out.get());
    }
    items.swap(out);
  }
  radix_detail::for_each_run(parts, n, sizeof(Item) + sizeof(int64_t),
                             [&](int, size_t begin, size_t end) {
                               for (size_t i = begin; i < end; ++i) perm[i] = items[i].position();
                             });
}

}  // namespace ndbuf::program
