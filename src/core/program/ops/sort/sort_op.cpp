// stablehlo.sort over ops/sort/sort.hpp and sort_program.hpp: the type rule checks the operands
// and the comparator's signature; the builder sorts by a recognised comparator's keys, a
// comparator that compiles to an element program as one, and any other through the
// interpreter.
#include <algorithm>

#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/sort/sort.hpp"
#include "program/ops/sort/sort_program.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// The sorted axis: `dimension`, counted from the end when negative (-1 when absent).
int64_t sort_dimension(const Op& op) {
  const auto rank = static_cast<int64_t>(operand_tensor(op, 0).shape.size());
  const int64_t dim = attr_int_or(op, "dimension", -1);
  return dim < 0 ? dim + rank : dim;
}

}  // namespace

// Results are the operands' types; the comparator takes two 0-d elements of each operand, in
// operand order, and says whether the first goes before the second.
void sort_types(const Op& op, const Module&) {
  if (op.operands.empty() || op.regions.size() != 1 || op.result_types != op.operand_types) {
    op_error(op, "needs operands, one comparator region and results of the operand types");
  }
  const Type& first = operand_tensor(op, 0);
  const auto rank = static_cast<int64_t>(first.shape.size());
  check_axes(op, "dimension", {sort_dimension(op)}, std::max<int64_t>(rank, 1), false);
  attr_bool_or(op, "is_stable", false);
  std::vector<DType> pairs;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    if (operand_tensor(op, k).shape != first.shape) {
      op_error(op, "operands must all have one shape");
    }
    pairs.insert(pairs.end(), 2, operand_tensor(op, k).dtype);
  }
  expect_region_args(op, op.regions[0], scalar_types(pairs));
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
}

// sort_types has checked the operands, the dimension and the comparator.
OpFn build_sort(const Op& op, const Planning& planning) {
  const int64_t dim = sort_dimension(op);
  const bool stable = attr_bool_or(op, "is_stable", false);
  const Region* body = &op.regions[0];
  const FastComparator fast = recognise_comparator(*body);
  const size_t n = op.operands.size();
  // A recognised comparator whose keys are real sorts faster by the compiled program's keys
  // (a radix sort, slices in parallel) than by sort()'s merge sort.
  if (auto program = region_program(*body, planning)) {
    SortComparator comparator = make_sort_comparator(std::move(*program));
    if (fast.direction == ComparatorOrder::kNone || sorts_by_real_keys(comparator)) {
      return [n, dim, comparator = std::move(comparator)](Interpreter&, const Values& a) {
        return values_of(sort_program(tensors_of(a, 0, n), dim, comparator));
      };
    }
  }
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, dim, stable, plan, fast](Interpreter& in, const Values& a) {
    return values_of(sort(tensors_of(a, 0, n), dim, stable, in.region_fn(*plan), fast));
  };
}

}  // namespace ndbuf::program
