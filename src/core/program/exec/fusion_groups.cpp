// Finds the fusion groups of a region and rewrites the region around them (fusion.hpp).
// A group grows backwards from its root: an element-wise op joins the group of its users when
// every user is in that one group and the shapes agree. Broadcasts and constants of the
// group's shape are read in place (never materialised); an element-wise op whose users are
// outside the group, or differ, roots a group of its own.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "program/element/element_compile.hpp"
#include "program/exec/fusion.hpp"
#include "program/exec/region_graph.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

constexpr int kOutside = -1;  // a value defined outside the region (an argument)

// group_of[k]: the group op k belongs to, or -1.
std::vector<int> assign_groups(const Region& region, const RegionGraph& graph,
                               const std::vector<StepFate>& fates,
                               std::vector<std::vector<int>>& members) {
  std::vector<int> group_of(region.ops.size(), -1);
  for (size_t k = region.ops.size(); k-- > 0;) {
    const Op& op = region.ops[k];
    if (k >= fates.size() || fates[k] != StepFate::kOpen || !fusible_elementwise(op)) continue;
    auto it = graph.users.find(op.results[0]);
    int joined = -1;
    if (it != graph.users.end()) {
      for (int user : it->second) {
        const int g = group_of[user];
        if (g < 0 || (joined >= 0 && g != joined)) {
          joined = -2;
          break;
        }
        joined = g;
      }
    }
    if (joined >= 0 &&
        region.ops[members[joined].front()].result_types[0].shape == op.result_types[0].shape) {
      group_of[k] = joined;
      members[joined].push_back(static_cast<int>(k));
    } else {
      group_of[k] = static_cast<int>(members.size());
      members.push_back({static_cast<int>(k)});
    }
  }
  for (auto& list : members) std::reverse(list.begin(), list.end());  // program order
  return group_of;
}

// Builds one group's plan: leaves (deduplicated), steps, and the fused step's operand list.
struct GroupBuilder {
  const Region& region;
  const RegionGraph& graph;
  const std::vector<int>& group_of;
  int group;
  FusedPlan plan;
  std::vector<int> operands;  // value ids the fused op reads
  std::vector<Type> operand_types;
  std::map<std::pair<int, int>, int> slots;  // (kind, value or op) -> leaf slot
  std::vector<int> absorbed;                 // feeder ops read in place

  int operand_index(int value, const Type& type) {
    auto it = std::find(operands.begin(), operands.end(), value);
    if (it != operands.end()) return static_cast<int>(it - operands.begin());
    operands.push_back(value);
    operand_types.push_back(type);
    return static_cast<int>(operands.size()) - 1;
  }

  int add_leaf(FusedLeaf leaf, DType dtype, std::pair<int, int> key) {
    auto it = slots.find(key);
    if (it != slots.end()) return it->second;
    plan.leaves.push_back(std::move(leaf));
    plan.program.arguments.push_back(dtype);
    slots[key] = static_cast<int>(plan.leaves.size()) - 1;
    return slots[key];
  }

  int feeder_leaf(int def) {
    const Op& feeder = region.ops[def];
    absorbed.push_back(def);
    const int operand = feeder.id == OpId::kConstant
                            ? -1
                            : operand_index(feeder.operands[0], feeder.operand_types[0]);
    return add_leaf(feeder_leaf_of(feeder, operand), feeder.result_types[0].dtype, {1, def});
  }

  int leaf_slot(int value, const Type& type) {
    const int def = defining_op(graph, value);
    if (def != kOutside && is_feeder(region.ops[def], plan.output.shape)) return feeder_leaf(def);
    FusedLeaf leaf;
    leaf.kind = type.shape == plan.output.shape ? FusedLeaf::Kind::kSame : FusedLeaf::Kind::kScalar;
    leaf.operand = operand_index(value, type);
    return add_leaf(std::move(leaf), type.dtype, {0, value});
  }

  bool is_member(int value) const {
    const int def = defining_op(graph, value);
    return def != kOutside && group_of[def] == group;
  }

  // Leaves first (argument k of the program is leaf k), then one step per member; false when
  // a member has no element step.
  bool build(const std::vector<int>& members) {
    plan.output = region.ops[members.back()].result_types[0];
    for (int m : members) {
      const Op& op = region.ops[m];
      for (size_t j = 0; j < op.operands.size(); ++j) {
        if (!is_member(op.operands[j])) leaf_slot(op.operands[j], op.operand_types[j]);
      }
    }
    ElementProgram& program = plan.program;
    for (size_t k = 0; k < program.arguments.size(); ++k) {
      ElementStep step;
      step.dtype = program.arguments[k];
      step.argument = static_cast<int32_t>(k);
      program.steps.push_back(step);
    }
    std::unordered_map<int, int32_t> register_of_value;
    for (int m : members) {
      const Op& op = region.ops[m];
      std::optional<ElementStep> step = element_step_of(op);
      if (!step) return false;
      for (size_t j = 0; j < op.operands.size(); ++j) {
        const int value = op.operands[j];
        step->operands[j] =
            is_member(value) ? register_of_value.at(value) : leaf_slot(value, op.operand_types[j]);
      }
      if (!element_operands_fit(program, *step)) return false;
      register_of_value[op.results[0]] = static_cast<int32_t>(program.steps.size());
      program.steps.push_back(*step);
    }
    program.results = {static_cast<int32_t>(program.steps.size()) - 1};
    std::sort(absorbed.begin(), absorbed.end());
    absorbed.erase(std::unique(absorbed.begin(), absorbed.end()), absorbed.end());
    return true;
  }

  // The group's one step, at its root's place; its run function reads the leaves' values.
  Step make_fused(const std::vector<int>& members, const std::vector<int>& any_layout) {
    const Op& root = region.ops[members.back()];
    plan.any_layout =
        std::find(any_layout.begin(), any_layout.end(), root.results[0]) != any_layout.end();
    Step step;
    step.any_layout = plan.any_layout;
    step.run = fused_run(std::move(plan));
    step.op = &root;
    step.operands = operands;
    step.results = root.results;
    step.fused = true;
    for (int m : members) step.members.push_back(&region.ops[static_cast<size_t>(m)]);
    return step;
  }
};

// A feeder is dropped when every op reading it is in a fused group that reads it in place.
bool feeder_fully_absorbed(int def, const Region& region, const RegionGraph& graph,
                           const std::vector<int>& group_of,
                           const std::map<int, std::vector<int>>& absorbed_by) {
  auto it = absorbed_by.find(def);
  auto users = graph.users.find(region.ops[def].results[0]);
  if (it == absorbed_by.end() || users == graph.users.end()) return false;
  return std::all_of(users->second.begin(), users->second.end(), [&](int user) {
    const int g = group_of[user];
    return g >= 0 && std::find(it->second.begin(), it->second.end(), g) != it->second.end();
  });
}

}  // namespace

bool is_fusible_op(OpId id) { return id != OpId::kUnknown && op_row(id).fusible; }

bool fusible_elementwise(const Op& op) {
  if (op.results.size() != 1 || !op.result_types[0].is_tensor()) return false;
  if (op.result_types[0].shape.empty() || !is_fusible_op(op.id)) return false;
  return std::all_of(op.operand_types.begin(), op.operand_types.end(), [&](const Type& t) {
    return t.is_tensor() && (t.shape == op.result_types[0].shape || t.shape.empty());
  });
}

bool is_feeder(const Op& op, const Shape& shape) {
  const bool feeds =
      op.id == OpId::kBroadcastInDim || op.id == OpId::kConstant || op.id == OpId::kTranspose;
  return feeds && op.results.size() == 1 && op.result_types[0].is_tensor() &&
         op.result_types[0].shape == shape;
}

FusedLeaf feeder_leaf_of(const Op& feeder, int operand) {
  FusedLeaf leaf;
  if (feeder.id == OpId::kConstant) {
    leaf.kind = FusedLeaf::Kind::kConstant;
    leaf.constant = *required_attr(feeder, "value").dense;
  } else if (feeder.id == OpId::kTranspose) {
    // A transpose is a broadcast that adds no dims: operand dim permutation[i] lands on
    // output dim i, so the leaf reads the operand in place with permuted strides.
    leaf.kind = FusedLeaf::Kind::kBroadcast;
    leaf.operand = operand;
    const std::vector<int64_t> permutation = attr_ints(feeder, "permutation");
    leaf.dims.assign(permutation.size(), 0);
    for (size_t i = 0; i < permutation.size(); ++i) {
      leaf.dims[static_cast<size_t>(permutation[i])] = static_cast<int64_t>(i);
    }
  } else {
    leaf.kind = FusedLeaf::Kind::kBroadcast;
    leaf.operand = operand;
    leaf.dims = attr_ints(feeder, "broadcast_dimensions");
  }
  return leaf;
}

std::optional<GroupPlan> plan_group(const Region& region, const RegionGraph& graph,
                                    const std::vector<int>& members) {
  std::vector<int> group_of(region.ops.size(), -1);
  for (int m : members) group_of[static_cast<size_t>(m)] = 0;
  GroupBuilder builder{region, graph, group_of, 0, {}, {}, {}, {}, {}};
  if (!builder.build(members)) return std::nullopt;
  return GroupPlan{std::move(builder.plan), std::move(builder.operands),
                   std::move(builder.absorbed)};
}

std::vector<Step> fuse_elementwise(const Region& region, std::vector<Step> steps,
                                   const std::vector<StepFate>& fates,
                                   const std::vector<int>& any_layout) {
  if (steps.size() + 1 != region.ops.size() || fates.size() != steps.size()) {
    fail_at(region.loc,
            "internal error: fusion needs one step per op; this is a bug in the "
            "runtime, please report it");
  }
  const RegionGraph graph = region_graph(region);
  std::vector<std::vector<int>> members;
  std::vector<int> group_of = assign_groups(region, graph, fates, members);
  std::map<int, std::vector<int>> absorbed_by;  // feeder op -> fused groups reading it in place
  std::vector<bool> absorbed(steps.size(), false);
  for (size_t g = 0; g < members.size(); ++g) {
    GroupBuilder builder{region, graph, group_of, static_cast<int>(g), {}, {}, {}, {}, {}};
    const bool expressible = builder.build(members[g]);
    // A lone op stays with its kernel, unless the caller alone reads its result: as a fused
    // loop it may then follow column-major operands (FusedPlan::any_layout).
    const int lone_result = region.ops[members[g].back()].results[0];
    const bool lone_free =
        std::find(any_layout.begin(), any_layout.end(), lone_result) != any_layout.end();
    if (!expressible || (members[g].size() < 2 && builder.absorbed.empty() && !lone_free)) {
      for (int m : members[g]) group_of[m] = -1;  // left as it is
      continue;
    }
    for (int def : builder.absorbed) absorbed_by[def].push_back(static_cast<int>(g));
    for (int m : members[g]) absorbed[m] = true;
    const int root = members[g].back();
    steps[root] = builder.make_fused(members[g], any_layout);
    absorbed[root] = false;
  }
  for (const auto& entry : absorbed_by) {
    if (feeder_fully_absorbed(entry.first, region, graph, group_of, absorbed_by)) {
      absorbed[entry.first] = true;
    }
  }
  std::vector<Step> kept;
  for (size_t k = 0; k < steps.size(); ++k) {
    if (!absorbed[k] && fates[k] != StepFate::kGone) kept.push_back(std::move(steps[k]));
  }
  return kept;
}

}  // namespace ndbuf::program
