// stablehlo.sort with a comparator compiled into an element program.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/element/element_program.hpp"
#include "program/ops/sort/sort_keys.hpp"

namespace ndbuf::program {

struct SortComparator {
  ElementProgram comparator;           // arguments a0, b0, a1, b1, ...; one pred result
  std::optional<ComparatorKeys> keys;  // its key form, when it has one
};

SortComparator make_sort_comparator(ElementProgram comparator);

// Whether the comparator has a key form with keys of a real (not complex) type.
bool sorts_by_real_keys(const SortComparator& comparator);

// What sort() computes with a region comparator (sort.hpp), the same permutation: keys (when
// the comparator has a key form) are computed once per element, in tiles, and sorted by a
// stable radix sort when their order is a strict weak one (the unique stable order then), by
// the merge sort on the keys otherwise; other comparators run per comparison in the merge
// sort. Slices run in parallel.
std::vector<Tensor> sort_program(const std::vector<Tensor>& inputs, int64_t dimension,
                                 const SortComparator& comparator);

}  // namespace ndbuf::program
