// Canonicalisation: exact rewrites of a verified module before planning, so that later passes
// and the plan see one spelling of each computation. Every rewrite keeps every result's bits:
//   - forwarding: an op that returns its operand unchanged (a convert, reshape or
//     broadcast_in_dim to the operand's own type, a transpose by the identity) is replaced by
//     that operand;
//   - chains: a transpose of a transpose, a reshape of a reshape and a broadcast_in_dim of a
//     broadcast_in_dim read the first op's operand directly (and are forwarded when what is
//     left is the identity);
//   - common subexpressions: a pure op equal to an earlier one in its region or an enclosing
//     one (same op, operands, attributes and result types) is replaced by it;
//   - dead code: pure ops whose results nothing reads are removed.
// Pure means without regions and without effects: structure, element-wise, contraction, FFT,
// gather and top_k ops. Calls, control flow, custom calls, random numbers, linear algebra,
// optimization_barrier and the interpreter's check ops are never moved, merged or removed.
#pragma once

#include "program/ir/module.hpp"

namespace ndbuf::program {

struct CanonicaliseCounts {
  int forwarded = 0;  // ops replaced by one of their operands
  int merged = 0;     // ops replaced by an equal earlier op
  int removed = 0;    // dead ops removed (forwarded and merged ones included)
  int rewritten = 0;  // chains shortened
  int sunk = 0;       // transposes moved onto operands (sink_transposes.hpp, run after)
  int masks = 0;      // factor masks folded into their factors (mask_factors.hpp, run after)
  CanonicaliseCounts& operator+=(const CanonicaliseCounts& other) {
    forwarded += other.forwarded;
    merged += other.merged;
    removed += other.removed;
    rewritten += other.rewritten;
    sunk += other.sunk;
    masks += other.masks;
    return *this;
  }
};

// Rewrites every function of `module` in place. The module must have passed verify_module();
// it still does afterwards (types are unchanged, values keep their numbers).
CanonicaliseCounts canonicalise(Module& module);

}  // namespace ndbuf::program
