// all_reduce of large tensors with a recognised body (add, multiply, maximum, minimum, and,
// or) among processes of one machine: each member folds one contiguous range of the elements,
// for the whole group, into the one result block the members share (shared_on()), so the work
// and the memory traffic are shared out instead of every member folding everything. The fold is
// the plain one (left to right in group order), so the bits are those of Combine::fold.
#pragma once

#include "program/exec/interpreter.hpp"
#include "program/ops/collective/combine.hpp"

namespace ndbuf::program {

// Elements from which the split pays for its second meeting of the group.
inline constexpr int64_t kSplitAllReduceBytes = int64_t{1} << 20;

// Whether split_all_reduce() runs `combine` on a tensor of `bytes`.
bool splits_all_reduce(const Combine& combine, int64_t bytes, size_t members);

// This member's result of the all_reduce of `operand` among `group`; every member of the group
// calls it for the same operand of the same op (`what` names it for the rendezvous).
Tensor split_all_reduce(Interpreter& in, const Combine& combine, const std::vector<int>& group,
                        const std::string& what, const Tensor& operand);

}  // namespace ndbuf::program
