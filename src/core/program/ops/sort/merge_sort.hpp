// The sort kernels' one permutation algorithm, shared so that a comparator run as a region, as
// an element program or through its keys gives the same permutation even when it is not a
// strict weak order (IEEE "<" with NaNs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// Bottom-up merge sort of positions; stable: an element of the right run goes first only when
// less(right, left). Stays in bounds and terminates for any `less`.
template <class Less>
void merge_sort(std::vector<int64_t>& perm, std::vector<int64_t>& buffer, Less&& less) {
  const int64_t n = static_cast<int64_t>(perm.size());
  buffer.resize(perm.size());
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) buffer[k++] = less(perm[j], perm[i]) ? perm[j++] : perm[i++];
      while (i < mid) buffer[k++] = perm[i++];
      while (j < hi) buffer[k++] = perm[j++];
    }
    perm.swap(buffer);
  }
}

// Writes the slice at `base` (elements base + p * step) of every dense input, permuted, to the
// dense results of the same shapes.
void permute_slice(const std::vector<Tensor>& inputs, std::vector<Tensor>& results, int64_t base,
                   int64_t step, const std::vector<int64_t>& perm);
// The same for positions [begin, end) of the slice only.
void permute_range(const std::vector<Tensor>& inputs, std::vector<Tensor>& results, int64_t base,
                   int64_t step, const std::vector<int64_t>& perm, int64_t begin, int64_t end);

}  // namespace ndbuf::program
