// The collectives that move their peers' parts without arithmetic: all_gather (every member
// gets the parts concatenated), all_to_all (each member a block of every part), and
// collective_permute / collective_broadcast (a chosen member's part; zeros for a process no
// pair or group names).
#include <algorithm>

#include "ndbuf/memory/transfer.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/collective/collective.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

void expect_same_ranks(const Op& op) {
  if (op.operands.empty() || op.result_types.size() != op.operands.size()) {
    op_error(op, "needs operands and one result per operand");
  }
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& in = operand_tensor(op, k);
    const Type& out = result_tensor(op, k);
    if (in.dtype != out.dtype || in.shape.size() != out.shape.size()) {
      op_error(op, "result " + std::to_string(k) + " must have operand " + std::to_string(k) +
                       "'s element type and rank");
    }
  }
}

}  // namespace

void all_gather_types(const Op& op, const Module&) {
  expect_same_ranks(op);
  const int64_t dim = attr_int(op, "all_gather_dim");
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Shape& in = operand_tensor(op, k).shape;
    const Shape& out = result_tensor(op, k).shape;
    check_axes(op, "all_gather_dim", {dim}, static_cast<int64_t>(in.size()), true);
    for (size_t d = 0; d < in.size(); ++d) {
      if (static_cast<int64_t>(d) != dim && in[d] != out[d]) {
        op_error(op, "result " + std::to_string(k) +
                         " may differ from its operand only in "
                         "all_gather_dim");
      }
    }
  }
}

OpFn build_all_gather(const Op& op, const Planning&) {
  const GroupSpec spec{
      replica_group_strategy(channel_id(op), attr_bool_or(op, "use_global_device_ids", false)),
      attr_id_groups(op, "replica_groups")};
  const int64_t dim = attr_int(op, "all_gather_dim");
  return [&op, spec, dim](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = my_group(in.context(), spec);
      if (group.empty()) op_error(op, "this process is in none of its replica groups");
      Values out;
      for (size_t k = 0; k < args.size(); ++k) {
        const int64_t want = result_tensor(op, k).shape[static_cast<size_t>(dim)];
        const int64_t have = args[k].get().shape()[static_cast<size_t>(dim)];
        if (want != have * static_cast<int64_t>(group.size())) {
          op_error(op, "a group of " + std::to_string(group.size()) + " gathers dimension " +
                           std::to_string(dim) + " to size " +
                           std::to_string(have * static_cast<int64_t>(group.size())) +
                           ", but result " + std::to_string(k) + " has " + std::to_string(want));
        }
      }
      if (dim == 0 && args.size() == 1 && spans_ranks(in.context(), group)) {
        const Tensor mine = make_dense(args[0].get(), Order::kRowMajor);
        Tensor all = Tensor::allocate(mine.dtype(), result_tensor(op, 0).shape, Order::kRowMajor);
        if (in.context().rendezvous->gather_across(group, mine, all)) return one_value(all);
      }
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), tensors_of(args)});
      for (size_t k = 0; k < args.size(); ++k) {
        out.emplace_back(concatenate(part_tensors(parts, k), dim));
      }
      return out;
    });
  };
}

void all_to_all_types(const Op& op, const Module&) {
  expect_same_ranks(op);
  const int64_t split = attr_int(op, "split_dimension");
  const int64_t concat = attr_int(op, "concat_dimension");
  const int64_t count = attr_int(op, "split_count");
  if (count <= 0) op_error(op, "split_count must be positive");
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& in = operand_tensor(op, k);
    const auto rank = static_cast<int64_t>(in.shape.size());
    check_axes(op, "split_dimension", {split}, rank, true);
    check_axes(op, "concat_dimension", {concat}, rank, true);
    if (in.shape[static_cast<size_t>(split)] % count != 0) {
      op_error(op, "split_count must divide the split dimension of every operand");
    }
    Shape shape = in.shape;
    shape[static_cast<size_t>(split)] /= count;
    shape[static_cast<size_t>(concat)] *= count;
    expect_result_type(op, k, in.dtype, shape);
  }
}

OpFn build_all_to_all(const Op& op, const Planning&) {
  const GroupSpec spec{channel_strategy(channel_id(op)), attr_id_groups(op, "replica_groups")};
  const auto split = static_cast<size_t>(attr_int(op, "split_dimension"));
  const int64_t concat = attr_int(op, "concat_dimension");
  const int64_t count = attr_int(op, "split_count");
  return [&op, spec, split, concat, count](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = my_group(in.context(), spec);
      if (static_cast<int64_t>(group.size()) != count) {
        op_error(op, "split_count is " + std::to_string(count) + " but this process's group has " +
                         std::to_string(group.size()) + " members");
      }
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), tensors_of(args)});
      const int64_t mine = position_in(group, in.context().process);
      Values out;
      for (size_t k = 0; k < args.size(); ++k) {
        std::vector<Tensor> blocks;
        for (const Tensor& part : part_tensors(parts, k)) {
          blocks.push_back(block_of(part, split, mine, count));
        }
        out.emplace_back(concatenate(blocks, concat));
      }
      return out;
    });
  };
}

void collective_permute_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& in = operand_tensor(op, 0);
  expect_result_type(op, 0, in.dtype, in.shape);
  std::vector<int64_t> sources, targets;
  for (const std::vector<int64_t>& pair : attr_int_rows(op, "source_target_pairs")) {
    if (pair.size() != 2) op_error(op, "source_target_pairs must have two columns");
    sources.push_back(pair[0]);
    targets.push_back(pair[1]);
  }
  check_axes(op, "source_target_pairs' sources", sources, INT64_MAX, true);
  check_axes(op, "source_target_pairs' targets", targets, INT64_MAX, true);
}

OpFn build_collective_permute(const Op& op, const Planning&) {
  // Every process of this one's replica column (or partition row) meets, whether a pair names
  // it or not; each then takes its source's part.
  const GroupSpec spec{channel_strategy(channel_id(op)), {}};
  const std::vector<std::vector<int64_t>> pairs = attr_int_rows(op, "source_target_pairs");
  return [&op, spec, pairs](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const ExecContext& context = in.context();
      const ProcessGrid grid = grid_of(context);
      const bool by_replica = spec.strategy == GroupStrategy::kCrossReplica;
      const int64_t self =
          by_replica ? grid.replica_of(context.process) : grid.partition_of(context.process);
      const int64_t bound = by_replica ? grid.replicas : grid.partitions;
      for (const auto& pair : pairs) {
        if (pair[0] >= bound || pair[1] >= bound) {
          op_error(op, "source_target_pairs names id " +
                           std::to_string(std::max(pair[0], pair[1])) + ", outside the grid's " +
                           std::to_string(bound));
        }
      }
      const std::vector<int> group = my_group(in.context(), spec);
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), tensors_of(args)});
      for (const auto& pair : pairs) {
        if (pair[1] == self) {
          return one_value(on_this_device((*parts)[static_cast<size_t>(pair[0])].tensors[0]));
        }
      }
      return one_value(zeros_of(result_tensor(op, 0)));
    });
  };
}

void collective_broadcast_types(const Op& op, const Module&) {
  const bool dynamic_root = attr_bool_or(op, "has_dynamic_root", false);
  const size_t data = op.operands.size() - (dynamic_root ? 1 : 0);
  if (op.operands.size() < (dynamic_root ? 2u : 1u) || op.result_types.size() != data) {
    op_error(op, "needs one result per data operand");
  }
  for (size_t k = 0; k < data; ++k) {
    const Type& in = operand_tensor(op, k);
    expect_result_type(op, k, in.dtype, in.shape);
  }
  if (dynamic_root) {
    const Type& roots = operand_tensor(op, data);
    if (roots.dtype != DType::kI32 || roots.shape != Shape{static_cast<int64_t>(data)}) {
      op_error(op, "the root operand must be tensor<" + std::to_string(data) + "xi32>");
    }
  }
}

OpFn build_collective_broadcast(const Op& op, const Planning&) {
  const GroupSpec spec{channel_strategy(channel_id(op)), attr_id_groups(op, "replica_groups")};
  const bool dynamic_root = attr_bool_or(op, "has_dynamic_root", false);
  const size_t data = op.operands.size() - (dynamic_root ? 1 : 0);
  return [&op, spec, data, dynamic_root](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = my_group(in.context(), spec);
      if (group.empty()) return zero_results(op, data);
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), tensors_of(args, 0, data)});
      const Tensor* roots = dynamic_root ? &args[data].get() : nullptr;
      Values out;
      for (size_t j = 0; j < data; ++j) {
        const size_t root = root_position(op, roots, j, group.size());
        out.emplace_back(on_this_device((*parts)[root].tensors[j]));
      }
      return out;
    });
  };
}

}  // namespace ndbuf::program
