// Plans each cluster of fusion through reductions (row_clusters.hpp) as one step
// (row_fusion.hpp), when every op of it compiles to an element step.
#include "program/exec/row_fusion.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "program/element/element_compile.hpp"
#include "program/exec/region_graph.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/exec/row_clusters.hpp"

namespace ndbuf::program {
namespace {

// Builds one cluster's plan and its step's operand list.
class RowPlanBuilder {
 public:
  RowPlanBuilder(const Region& region, const RegionGraph& graph, const RowShape& shape,
                 const std::vector<int>& ops)
      : region_(region), graph_(graph), shape_(shape), member_(region.ops.size(), false) {
    for (int k : ops) member_[static_cast<size_t>(k)] = true;
    plan_.full_shape = shape.full;
    plan_.row_shape = shape.rows;
    plan_.cols = shape.cols;
    plan_.rows = 1;
    for (int64_t d : shape.rows) plan_.rows *= d;
  }

  // False when an op has no element step (the cluster is then left alone).
  bool build(const std::vector<int>& ops) {
    for (int k : ops) {
      const Op& op = region_.ops[static_cast<size_t>(k)];
      const Role role = role_of(op, shape_);
      if (role == Role::kRowBroadcast) continue;
      if (role == Role::kReduce) {
        add_reduce(op);
      } else if (!add_element(op, role == Role::kFull)) {
        return false;
      }
    }
    for (int k : ops) {
      const Op& op = region_.ops[static_cast<size_t>(k)];
      if (role_of(op, shape_) == Role::kRowBroadcast) continue;
      const std::vector<int>& users = users_of(graph_, op.results[0]);
      const bool escapes = std::any_of(users.begin(), users.end(), [&](int user) {
        return !member_[static_cast<size_t>(user)];
      });
      if (escapes) {
        plan_.results.push_back(register_of_.at(op.results[0]));
        results_.push_back(op.results[0]);
      }
    }
    return !results_.empty();
  }

  // The feeders only this cluster reads (their steps go).
  std::vector<int> absorbed_feeders() const {
    std::vector<int> gone;
    for (int def : feeders_) {
      const std::vector<int>& users =
          users_of(graph_, region_.ops[static_cast<size_t>(def)].results[0]);
      if (std::all_of(users.begin(), users.end(),
                      [&](int user) { return member_[static_cast<size_t>(user)]; })) {
        gone.push_back(def);
      }
    }
    return gone;
  }

  Step make_step(const Op& anchor, const std::vector<int>& ops) {
    Step step;
    step.op = &anchor;
    for (int k : ops) step.members.push_back(&region_.ops[static_cast<size_t>(k)]);
    step.operands = operands_;
    step.results = results_;
    step.row_fused = true;
    step.run = row_fused_run(std::move(plan_));
    return step;
  }

 private:
  int operand_index(int value) {
    auto it = std::find(operands_.begin(), operands_.end(), value);
    if (it != operands_.end()) return static_cast<int>(it - operands_.begin());
    operands_.push_back(value);
    return static_cast<int>(operands_.size()) - 1;
  }

  int new_register(int value, DType dtype, bool full) {
    plan_.registers.push_back({dtype, full});
    const int reg = static_cast<int>(plan_.registers.size()) - 1;
    register_of_[value] = reg;
    return reg;
  }

  void add_reduce(const Op& op) {
    RowUnit unit;
    unit.kind = RowUnit::Kind::kReduce;
    unit.full = false;
    unit.body = recognise_body(op.regions[0]);
    const int source = op.operands[0];
    const int def = defining_op(graph_, source);
    if (def < 0 || !member_[static_cast<size_t>(def)]) {
      unit.loaded = operand_index(source);
      if (register_of_.count(source) == 0) add_load(source, op.operand_types[0].dtype);
    }
    unit.in = register_of_.at(source);
    unit.init = operand_index(op.operands[1]);
    unit.out = new_register(op.results[0], op.result_types[0].dtype, false);
    plan_.units.push_back(std::move(unit));
  }

  // A full register holding an outside value, block by block, for a reduction and the ops
  // after it that read the value.
  void add_load(int value, DType dtype) {
    RowUnit unit;
    unit.kind = RowUnit::Kind::kLoad;
    RowInput input;
    input.leaf.kind = FusedLeaf::Kind::kSame;
    input.leaf.operand = operand_index(value);
    unit.inputs.push_back(input);
    unit.out = new_register(value, dtype, true);
    plan_.units.push_back(std::move(unit));
  }

  RowInput input_of(int value, const Type& type, const Shape& unit_shape) {
    RowInput input;
    if (auto loaded = register_of_.find(value); loaded != register_of_.end()) {
      input.kind = RowInput::Kind::kRegister;  // a member's result, or an outside value loaded
      input.reg = loaded->second;
      return input;
    }
    const int def = defining_op(graph_, value);
    if (def >= 0 && member_[static_cast<size_t>(def)]) {
      const Op& producer = region_.ops[static_cast<size_t>(def)];
      if (role_of(producer, shape_) != Role::kRowBroadcast) {
        input.kind = RowInput::Kind::kRegister;
        input.reg = register_of_.at(value);
        return input;
      }
      const int source = producer.operands[0];
      const int source_def = defining_op(graph_, source);
      if (source_def >= 0 && member_[static_cast<size_t>(source_def)]) {
        input.kind = RowInput::Kind::kRowBroadcast;
        input.reg = register_of_.at(source);
        return input;
      }
      input.leaf = feeder_leaf_of(producer, operand_index(source));
      return input;
    }
    if (def >= 0 && is_feeder(region_.ops[static_cast<size_t>(def)], unit_shape)) {
      const Op& feeder = region_.ops[static_cast<size_t>(def)];
      feeders_.push_back(def);
      const int operand = feeder.id == OpId::kConstant ? -1 : operand_index(feeder.operands[0]);
      input.leaf = feeder_leaf_of(feeder, operand);
      return input;
    }
    input.leaf.kind = type.shape == unit_shape ? FusedLeaf::Kind::kSame : FusedLeaf::Kind::kScalar;
    input.leaf.operand = operand_index(value);
    return input;
  }

  bool add_element(const Op& op, bool full) {
    RowUnit unit;
    unit.full = full;
    const Shape& unit_shape = full ? shape_.full : shape_.rows;
    std::optional<ElementStep> step = element_step_of(op);
    if (!step) return false;
    std::vector<int> argument_values;
    for (size_t j = 0; j < op.operands.size(); ++j) {
      const int value = op.operands[j];
      auto seen = std::find(argument_values.begin(), argument_values.end(), value);
      int argument = static_cast<int>(seen - argument_values.begin());
      if (seen == argument_values.end()) {
        argument_values.push_back(value);
        unit.inputs.push_back(input_of(value, op.operand_types[j], unit_shape));
        unit.program.arguments.push_back(op.operand_types[j].dtype);
      }
      step->operands[j] = argument;
    }
    for (size_t k = 0; k < unit.program.arguments.size(); ++k) {
      ElementStep argument;
      argument.dtype = unit.program.arguments[k];
      argument.argument = static_cast<int32_t>(k);
      unit.program.steps.push_back(argument);
    }
    if (!element_operands_fit(unit.program, *step)) return false;
    unit.program.steps.push_back(*step);
    unit.program.results = {static_cast<int32_t>(unit.program.steps.size()) - 1};
    unit.out = new_register(op.results[0], op.result_types[0].dtype, full);
    plan_.units.push_back(std::move(unit));
    return true;
  }

  const Region& region_;
  const RegionGraph& graph_;
  const RowShape& shape_;
  std::vector<bool> member_;
  RowPlan plan_;
  std::vector<int> operands_;
  std::vector<int> results_;
  std::vector<int> feeders_;
  std::unordered_map<int, int> register_of_;
};

}  // namespace

void fuse_rows(const Region& region, std::vector<Step>& steps, std::vector<StepFate>& fates) {
  if (steps.size() + 1 != region.ops.size() || fates.size() != steps.size()) return;
  const RegionGraph graph = region_graph(region);
  ClusterFinder finder(region, graph);
  int clusters = 0;
  for (size_t k = 0; k + 1 < region.ops.size(); ++k) {
    if (finder.owned(static_cast<int>(k))) continue;
    const std::optional<RowShape> shape = seed_shape(region, graph, k);
    if (!shape) continue;
    const std::optional<std::vector<int>> ops = finder.grow(static_cast<int>(k), *shape, clusters);
    if (!ops) continue;
    ++clusters;
    RowPlanBuilder builder(region, graph, *shape, *ops);
    if (!builder.build(*ops)) continue;
    for (int def : builder.absorbed_feeders()) fates[static_cast<size_t>(def)] = StepFate::kGone;
    for (int op : *ops) fates[static_cast<size_t>(op)] = StepFate::kGone;
    const auto anchor = static_cast<size_t>(ops->back());
    steps[anchor] = builder.make_step(region.ops[anchor], *ops);
    fates[anchor] = StepFate::kTaken;
  }
}

}  // namespace ndbuf::program
