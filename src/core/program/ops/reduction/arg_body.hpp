// Bodies of two-operand reductions that pick a (value, index) pair: argmax and argmin as JAX
// lowers them (NaN first, lowest index on ties), and the other bodies built the same way.
#pragma once

#include <cstdint>
#include <optional>

#include "program/element/element_program.hpp"

namespace ndbuf::program {

// Which pair such a body keeps, in each of the situations its comparisons can tell apart. The
// body is called as body(a, b, c, d): (a, b) the accumulated value and index, (c, d) the next
// element's. A value situation is one of
//   0: a < c   1: a == c   2: a > c   (neither NaN)
//   3: a NaN, c not   4: c NaN, a not   5: both NaN
// (integers know 0-2 only) and an index situation one of 0: b < d, 1: b == d, 2: b > d.
// Bit 3 * value_situation + index_situation of `take_value` is set when the body returns c as
// the value (else a), of `take_index` when it returns d as the index (else b).
struct ArgPickTable {
  uint32_t take_value = 0;
  uint32_t take_index = 0;
};

// The table of `body` when it has two accumulators, a float or integer value and an integer
// index, and computes its results from the arguments by comparisons of like with like (of the
// compare type the element type calls for), boolean logic over them and selects between
// arguments of one kind: then its results depend on the situations alone. nullopt otherwise.
std::optional<ArgPickTable> recognise_arg_pick(const ElementProgram& body);

}  // namespace ndbuf::program
