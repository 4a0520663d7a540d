// An element program in the shape of a region callback, for kernels that call their body one
// element at a time in an order that matters (scatter's duplicate indices, select_and_scatter's
// windows, reduce_window's general bodies): the same calls, without the interpreter.
#pragma once

#include "program/element/element_program.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// A RegionFn that runs `program` (which must outlive it) on one lane. Each RegionFn owns its
// registers: use one per kernel call, from one thread.
RegionFn element_region_fn(const ElementProgram& program);

}  // namespace ndbuf::program
