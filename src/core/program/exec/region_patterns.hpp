// Recognises the common region bodies (a + b, max(a, b), a < b, ...) so that kernels run them
// natively instead of calling the region per element.
#pragma once

#include "program/ir/module.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// `(%a, %b) { %r = OP %a, %b; return %r }` (either operand order) for add, multiply, maximum,
// minimum, and, or; `{ return %b }` is kReplace. kNone otherwise.
FastBody recognise_body(const Region& region);
// `(%a, %b, ...) { %r = compare DIR, %a, %b[, TYPE]; return %r }` with DIR one of LT, LE, GT, GE.
FastComparator recognise_comparator(const Region& region);

}  // namespace ndbuf::program
