// What the collective ops share: their process groups decoded at plan time, the exchange of
// parts with the peers at run time (through the execution's Rendezvous, or the process alone on
// one device), and errors that carry the op's line:column and keep their kind.
#pragma once

#include <string>
#include <vector>

#include "program/exec/interpreter.hpp"
#include "program/ir/module.hpp"
#include "program/spmd/process_grid.hpp"
#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {

struct GroupSpec {
  GroupStrategy strategy = GroupStrategy::kCrossReplica;
  IdGroups ids;
};

// The groups of attribute `key` (replica_groups, a 2-d si64 tensor; -1 pads ragged groups).
IdGroups attr_id_groups(const Op& op, const std::string& key);
// channel_handle's handle (or a channel_id integer); 0 when absent.
int64_t channel_id(const Op& op);

// The grid of this execution (1 x 1 on one device) and this process's number in it.
ProcessGrid grid_of(const ExecContext& context);
// The group `spec` puts this process in; empty when it is in none.
std::vector<int> my_group(const ExecContext& context, const GroupSpec& spec);
// Every member's part, in group order (the process alone without a rendezvous).
CollectiveParts exchange(ExecContext& context, const std::vector<int>& group, CollectivePart mine);
// Some member of `group` runs in another rank (a distributed run): parts cross as bytes.
bool spans_ranks(const ExecContext& context, const std::vector<int>& group);
// "'stablehlo.all_reduce' (tensor<4xi64>)": what the peers of a collective must agree on.
std::string collective_signature(const Op& op);
// Where `process` stands in `group` (group.size() when it is not there).
int64_t position_in(const std::vector<int>& group, int process);
// Block `index` of `count` equal blocks of `t` along `dim`, as a new dense tensor.
Tensor block_of(const Tensor& t, size_t dim, int64_t index, int64_t count);
// Operand `operand` of every member's part, in group order.
std::vector<Tensor> part_tensors(const CollectiveParts& parts, size_t operand);
// Data operand j's root: position 0 of the group, or with a dynamic root (`roots`, the last
// operand, one si32 per data operand) the position it names; an error outside the group.
size_t root_position(const Op& op, const Tensor* roots, size_t j, size_t members);
// Zeros of the op's first `count` result types: what a process no group names receives.
Values zero_results(const Op& op, size_t count);
// `t` when it lives on this thread's current device, else a copy there (a peer's part received).
Tensor on_this_device(const Tensor& t);
// `t`'s memory as a result on `device` (Storage::shared_result(): read-only, never donated),
// keeping `t`'s storage alive: CPU devices of one process all address host memory, so the
// members of a group can share one result whose values they agree on. Both must be host devices.
Tensor shared_on(const Tensor& t, const Device& device);
// A dense zero tensor of a tensor type (what a process outside every group receives).
Tensor zeros_of(const Type& type);

// Runs f(), re-raising an ndbuf::Error with the op's "line:column: 'name'" in front, of the same
// kind (a peer's failure stays a device error); interrupts pass through unchanged.
template <class F>
auto in_collective(const Op& op, F f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInterrupted) throw;
    throw Error(e.kind(), std::to_string(op.loc.line) + ":" + std::to_string(op.loc.column) +
                              ": '" + op.name + "' " + e.what());
  }
}

}  // namespace ndbuf::program
