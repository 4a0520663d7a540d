// Sort comparators in key form: less(a, b) = compare DIR, key(a), key(b), TYPE, where key is one
// element program applied to a's elements and, identically, to b's (JAX's comparators: the
// first operand canonicalised for -0 and NaN, then LT in the total order; argsort's iota operand
// ignored). Keys are computed once per element instead of once per comparison.
#pragma once

#include <optional>

#include "program/element/element_program.hpp"

namespace ndbuf::program {

struct ComparatorKeys {
  ElementProgram key;  // one argument per sort operand (its element), one result
  CompareDirection direction = CompareDirection::kLT;
  CompareType type = CompareType::kFloat;
};

// The key form of a comparator program (arguments a0, b0, a1, b1, ...), or nullopt when its
// result is not one real compare of two sides that are the same computation on the a- and the
// b-elements respectively.
std::optional<ComparatorKeys> comparator_keys(const ElementProgram& comparator);

}  // namespace ndbuf::program
