#include "program/exec/loop_layout.hpp"

#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {
namespace {

// Marks in `read` (by value id) what the steps of `region` read when `in_loop`, then descends
// into the regions of its control flow (a while's regions are inside a loop).
void mark_loop_reads(const Plan& plan, const RegionPlan& region, bool in_loop,
                     std::vector<bool>& read) {
  for (const Step& step : region.steps) {
    if (in_loop) {
      for (int id : step.operands) read[static_cast<size_t>(id)] = true;
    }
    if (!runs_nested_plans(step)) continue;
    const bool loops = in_loop || step.op->id == OpId::kWhile;
    for (const Region& nested : step.op->regions) {
      mark_loop_reads(plan, plan.region(nested), loops, read);
    }
  }
}

// Which operands of one step read faster dense row-major (operand k: bit k).
uint64_t row_major_operands(const Step& step) {
  if (step.row_fused) return ~uint64_t{0};
  if (step.fused) return 0;
  switch (step.op->id) {
    case OpId::kGather:
      return gather_reads_whole_rows(*step.op) ? 1 : 0;
    case OpId::kConvolution:
    case OpId::kSelectAndScatter:  // picks and scatters by dense row-major windows
      return 3;
    case OpId::kDotGeneral:  // a batch of matrices strided by the batch dim must be packed
      return step.op->operand_types[0].shape.size() > 2 ||
                     step.op->operand_types[1].shape.size() > 2
                 ? 3
                 : 0;
    default:
      return 0;
  }
}

}  // namespace

std::vector<bool> args_read_in_loops(const Plan& plan, const Function& main) {
  const RegionPlan& body = *plan.function(main).body;
  std::vector<bool> read(static_cast<size_t>(main.num_values), false);
  mark_loop_reads(plan, body, false, read);
  std::vector<bool> args;
  for (int id : body.args) args.push_back(read[static_cast<size_t>(id)]);
  return args;
}

std::vector<bool> args_read_by_rows(const Plan& plan, const Function& main) {
  const RegionPlan& body = *plan.function(main).body;
  std::vector<bool> by_rows(static_cast<size_t>(main.num_values), false);
  for (const Step& step : body.steps) {
    const uint64_t wanted = row_major_operands(step);
    for (size_t k = 0; k < step.operands.size() && k < 64; ++k) {
      if ((wanted >> k) & 1) by_rows[static_cast<size_t>(step.operands[k])] = true;
    }
  }
  std::vector<bool> args;
  for (int id : body.args) args.push_back(by_rows[static_cast<size_t>(id)]);
  return args;
}

Tensor loop_layout(const Tensor& input) {
  if (!is_host(input.device()) || input.is_contiguous(Order::kRowMajor) ||
      input.nbytes() > kLoopLayoutMaxBytes) {
    return input;
  }
  return make_dense(input, Order::kRowMajor);
}

}  // namespace ndbuf::program
