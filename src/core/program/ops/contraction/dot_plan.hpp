// How a dot_general splits its operands' dims, decided from their shapes alone: once per op
// when the program is planned (the shapes are static), then used by every run.
#pragma once

#include <cstdint>
#include <vector>

#include "ndbuf/base/shape.hpp"

namespace ndbuf::program {

// Dims of one operand: batching, free and contracting, each in the order the spec gives them
// (batching and contracting as listed, free in operand order).
struct DotSide {
  std::vector<int64_t> batch, free, contracting;
};

// Both operands' dims and the result's shape (batch, lhs free, rhs free dims).
struct DotPlan {
  DotSide l, r;
  Shape shape;
  bool small = false;  // runs through small_dot() (dot_small.hpp) when the dtypes allow
};

}  // namespace ndbuf::program
