// Transpose sinking: a transpose of an element-wise op's result that nothing else reads becomes
// that op applied to transposes of its operands. The transposes travel towards the values the
// element-wise chain starts from: two that meet compose (canonicalisation turns them into one,
// often the identity), and one that reaches a value made outside the chain is read by the
// fused loop as a strided view. A chain of element-wise ops with transposes between its links
// (add, transpose, add, transpose, ...) then runs as one fused loop instead of one loop per
// link. Exact: an element-wise op commutes with any permutation of its elements, so every
// result keeps its bits.
//
// Only results of at most kSinkableBytes move: a fused loop reads each transposed operand
// strided, and on an array larger than the caches that costs more than writing the result once
// and reading it transposed (small arrays, a training step's or a loop body's, stay in cache).
#pragma once

#include <cstdint>

#include "program/ir/module.hpp"

namespace ndbuf::program {

inline constexpr int64_t kSinkableBytes = int64_t{256} << 10;

// Rewrites every function of `module` in place and returns how many transposes moved onto
// operands. The module must have passed verify_module(); it still does afterwards. Run
// canonicalise() after it: the transposes it leaves meet each other and common operands.
int sink_transposes(Module& module);

}  // namespace ndbuf::program
