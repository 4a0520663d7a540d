// The CPU backend: each op runs its op-table builder's run function (registry/ops.def, the
// kernels of program/ops/), chains of element-wise ops and the producers and consumers of
// row reductions run as fused loops (fusion.hpp, row_fusion.hpp), and the steps that compute
// each element from operand elements at the same position may write over an operand.
#include <algorithm>

#include "program/exec/backend.hpp"
#include "program/exec/fusion.hpp"
#include "program/exec/matvec_pairs.hpp"
#include "program/exec/row_fusion.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "CPU"; }

  OpFn lower(const Op& op, const Planning& planning) const override {
    if (op.id == OpId::kUnknown) return {};
    const OpRow& row = op_row(op.id);
    return row.build == nullptr ? OpFn{} : row.build(op, planning);
  }

  // Row clusters first (a reduction with its element-wise producers and consumers), then
  // groups of the element-wise ops left; a row-fused step sits at its last op's place, which
  // may come after an op outside it that reads one of its earlier values, hence the reorder.
  std::vector<Step> fuse(const Region& region, std::vector<Step> steps, const PlanPasses& passes,
                         const RegionFacts& facts) const override {
    if (!passes.elementwise) return steps;
    std::vector<StepFate> fates(steps.size(), StepFate::kOpen);
    if (passes.reductions) fuse_rows(region, steps, fates);
    if (passes.matvec_pairs) fuse_matvec_pairs(region, steps, fates);
    const bool any_rows = std::find(fates.begin(), fates.end(), StepFate::kTaken) != fates.end();
    static const std::vector<int> kNone;
    steps = fuse_elementwise(region, std::move(steps), fates,
                             passes.result_layouts ? facts.any_layout : kNone);
    return any_rows ? order_by_dependencies(std::move(steps)) : steps;
  }

  // Element-wise kernels and fused loops take their result from the offered memory;
  // dynamic_update_slice starts from a copy of operand 0, so only that operand qualifies.
  bool may_write_over(const Step& step, size_t operand) const override {
    if (step.results.size() != 1 || step.row_fused || !step.op->result_types[0].is_tensor()) {
      return false;
    }
    if (step.op->id == OpId::kDynamicUpdateSlice) return operand == 0;
    return step.fused || is_fusible_op(step.op->id);
  }
};

}  // namespace

const Backend& cpu_backend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace ndbuf::program
