// The collectives that fold their peers' parts with a computation region: all_reduce (every
// member gets the fold), reduce_scatter (each member its block of it) and collective_reduce
// (the group's root gets it, the others zeros). Only the region's own element type is accepted
// for the operands (the spec's promotion applies to quantized types, which are not supported).
#include <optional>

#include "ndbuf/memory/transfer.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/collective/collective.hpp"
#include "program/ops/collective/combine.hpp"
#include "program/ops/collective/split_all_reduce.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// The region is (tensor<E>, tensor<E>) -> tensor<E> with E every operand's element type, and
// result k has operand k's type, except for `reshaped`, whose shape the op checks itself.
void expect_folding_region(const Op& op, size_t data_operands) {
  if (op.regions.size() != 1 || data_operands == 0) {
    op_error(op, "needs operands and one computation region");
  }
  const DType dtype = operand_tensor(op, 0).dtype;
  expect_region_args(op, op.regions[0], scalar_types({dtype, dtype}));
  expect_region_returns(op, op.regions[0], scalar_types({dtype}));
  for (size_t k = 0; k < data_operands; ++k) {
    if (operand_tensor(op, k).dtype != dtype) {
      op_error(op,
               "operands must share the computation's element type " + element_type_name(dtype));
    }
  }
}

void expect_results_like_operands(const Op& op, size_t count) {
  if (op.result_types.size() != count) op_error(op, "needs one result per operand");
  for (size_t k = 0; k < count; ++k) {
    const Type& in = operand_tensor(op, k);
    expect_result_type(op, k, in.dtype, in.shape);
  }
}

std::vector<int> required_group(const Op& op, const ExecContext& context, const GroupSpec& spec) {
  std::vector<int> group = my_group(context, spec);
  if (group.empty()) {
    op_error(op, "process " + grid_of(context).name(context.process) +
                     " is in none of its replica groups");
  }
  return group;
}

// The fold of a group that spans ranks, run by the transport where it can (one process a rank,
// a body that runs as one element-wise kernel).
std::optional<Tensor> fold_by_transport(Interpreter& in, const Combine& combine,
                                        const std::vector<int>& group, const Tensor& operand) {
  if (!combine.is_native() || !spans_ranks(in.context(), group)) return std::nullopt;
  const Tensor mine = make_dense(operand, Order::kRowMajor);
  Tensor out = Tensor::allocate(mine.dtype(), mine.shape(), Order::kRowMajor);
  const FoldInto fold = [&combine](const Tensor& a, const Tensor& b, const Tensor& target) {
    combine.into(a, b, target);
  };
  if (!in.context().rendezvous->fold_across(group, mine, out, fold)) return std::nullopt;
  return out;
}

size_t data_operand_count(const Op& op) {
  return op.operands.size() - (attr_bool_or(op, "has_dynamic_root", false) ? 1 : 0);
}

}  // namespace

void all_reduce_types(const Op& op, const Module&) {
  expect_folding_region(op, op.operands.size());
  expect_results_like_operands(op, op.operands.size());
}

OpFn build_all_reduce(const Op& op, const Planning& planning) {
  const GroupSpec spec{
      replica_group_strategy(channel_id(op), attr_bool_or(op, "use_global_device_ids", false)),
      attr_id_groups(op, "replica_groups")};
  const Combine combine(op.regions[0], operand_tensor(op, 0).dtype, planning);
  return [&op, spec, combine](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = required_group(op, in.context(), spec);
      const std::string what = collective_signature(op);
      if (args.size() == 1) {
        if (std::optional<Tensor> folded = fold_by_transport(in, combine, group, args[0].get())) {
          return one_value(*folded);
        }
        if (!spans_ranks(in.context(), group) &&
            splits_all_reduce(combine, args[0].get().nbytes(), group.size())) {
          return one_value(split_all_reduce(in, combine, group, what, args[0].get()));
        }
      }
      const CollectiveParts parts = exchange(in.context(), group, {what, tensors_of(args)});
      Values out;
      for (size_t j = 0; j < args.size(); ++j) {
        out.emplace_back(on_this_device(combine.fold(in, part_tensors(parts, j))));
      }
      return out;
    });
  };
}

void reduce_scatter_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  expect_folding_region(op, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& out = result_tensor(op, 0);
  const int64_t dim = attr_int(op, "scatter_dimension");
  check_axes(op, "scatter_dimension", {dim}, static_cast<int64_t>(in.shape.size()), true);
  // The result's scatter dimension depends on the group's size; every other dimension is the
  // operand's.
  Shape expected = in.shape;
  if (out.shape.size() == in.shape.size())
    expected[static_cast<size_t>(dim)] = out.shape[static_cast<size_t>(dim)];
  expect_result_type(op, 0, in.dtype, expected);
}

OpFn build_reduce_scatter(const Op& op, const Planning& planning) {
  const GroupSpec spec{
      replica_group_strategy(channel_id(op), attr_bool_or(op, "use_global_device_ids", false)),
      attr_id_groups(op, "replica_groups")};
  const Combine combine(op.regions[0], operand_tensor(op, 0).dtype, planning);
  const auto dim = static_cast<size_t>(attr_int(op, "scatter_dimension"));
  return [&op, spec, combine, dim](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = required_group(op, in.context(), spec);
      const Tensor& operand = args[0].get();
      const int64_t block = result_tensor(op, 0).shape[dim];
      if (block * static_cast<int64_t>(group.size()) != operand.shape()[dim]) {
        op_error(op, "a group of " + std::to_string(group.size()) + " splits dimension " +
                         std::to_string(dim) + " of size " + std::to_string(operand.shape()[dim]) +
                         " into blocks of " +
                         std::to_string(operand.shape()[dim] / std::max<size_t>(1, group.size())) +
                         ", not " + std::to_string(block));
      }
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), {operand}});
      // Only this member's block of each part is folded.
      const int64_t mine = position_in(group, in.context().process);
      const auto members = static_cast<int64_t>(group.size());
      std::vector<Tensor> blocks;
      for (const Tensor& part : part_tensors(parts, 0)) {
        blocks.push_back(block_of(part, dim, mine, members));
      }
      return one_value(on_this_device(combine.fold(in, blocks)));
    });
  };
}

void collective_reduce_types(const Op& op, const Module&) {
  const size_t data = data_operand_count(op);
  expect_folding_region(op, data);
  expect_results_like_operands(op, data);
}

OpFn build_collective_reduce(const Op& op, const Planning& planning) {
  const GroupSpec spec{channel_strategy(channel_id(op)), attr_id_groups(op, "replica_groups")};
  const Combine combine(op.regions[0], operand_tensor(op, 0).dtype, planning);
  const size_t data = data_operand_count(op);
  return [&op, spec, combine, data](Interpreter& in, const Values& args) {
    return in_collective(op, [&] {
      const std::vector<int> group = my_group(in.context(), spec);
      if (group.empty()) return zero_results(op, data);
      const CollectiveParts parts =
          exchange(in.context(), group, {collective_signature(op), tensors_of(args, 0, data)});
      const Tensor* roots = args.size() > data ? &args.back().get() : nullptr;
      Values out;
      for (size_t j = 0; j < data; ++j) {
        const size_t root = root_position(op, roots, j, group.size());
        if (group[root] == in.context().process) {
          out.emplace_back(on_this_device(combine.fold(in, part_tensors(parts, j))));
        } else {
          out.emplace_back(zeros_of(result_tensor(op, j)));
        }
      }
      return out;
    });
  };
}

}  // namespace ndbuf::program
