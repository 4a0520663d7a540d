// Recognises the common region bodies (a + b, max(a, b), a < b, ...) so that kernels run them
// natively instead of calling the region per element; the others are called as element
// programs when they compile to one, through the interpreter otherwise.
#pragma once

#include <optional>

#include "program/element/element_program.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/module.hpp"
#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// `(%a, %b) { %r = OP %a, %b; return %r }` (either operand order) for add, multiply, maximum,
// minimum, and, or; `{ return %b }` is kReplace. kNone otherwise.
FastBody recognise_body(const Region& region);
// `(%a, %b, ...) { %r = compare DIR, %a, %b[, TYPE]; return %r }` with DIR one of LT, LE, GT, GE.
FastComparator recognise_comparator(const Region& region);

// How a kernel calls a region body per element: natively when `fast` is not kNone, else
// through `program` when the body compiled to one, else through the interpreter.
struct BodyCall {
  FastBody fast = FastBody::kNone;
  std::optional<ElementProgram> program;
  const RegionPlan* plan = nullptr;
  // The body as a RegionFn of this run (the kernel ignores it when `fast` is not kNone).
  RegionFn fn(Interpreter& in) const;
};
// `body` as an element program when it compiles to one (compile_element_program()) and
// planning compiles region bodies (PlanPasses::region_bodies), else nullopt.
std::optional<ElementProgram> region_program(const Region& body, const Planning& planning);
// `body`'s call, recognised only when `recognise` (a variadic kernel has no native bodies).
BodyCall body_call(const Region& body, const Planning& planning, bool recognise = true);

}  // namespace ndbuf::program
