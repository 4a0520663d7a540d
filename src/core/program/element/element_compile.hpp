// Region bodies compiled into element programs (element/element_program.hpp) at plan time.
#pragma once

#include <optional>

#include "program/element/element_program.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// The body as an element program when every value in it is 0-d and every op is element-wise
// (compare, select, clamp, convert, constant, the unary and binary element-wise ops) and uses
// only the body's arguments and earlier results; nullopt otherwise (calls, nested regions,
// other ops, values from outside). Never throws: a malformed op is left to the interpreter's
// planning, which reports it.
std::optional<ElementProgram> compile_element_program(const Region& region);

// The step computing `op` (an element-wise op of any shape: compare, select, clamp, convert,
// reduce_precision, a 0-d constant, the unary and binary element-wise ops) with its operands
// not yet filled in, or nullopt for any other op or one whose dtypes the kernels refuse.
// Never throws (but for interrupts and allocation failures).
std::optional<ElementStep> element_step_of(const Op& op);

// Whether the operands named by `step` (registers of `program`) have the dtypes its kernel
// requires (one dtype, pred predicates).
bool element_operands_fit(const ElementProgram& program, const ElementStep& step);

}  // namespace ndbuf::program
