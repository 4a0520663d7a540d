// Finds fused matrix-vector pairs (matvec_pairs.hpp): a product z of matrix X and a vector, an
// element-wise chain from z to d, and a product g of d with the same X over its other dim.
#include "program/exec/matvec_pairs.hpp"

#include <algorithm>
#include <set>

namespace ndbuf::program {
namespace {

// A candidate: the two products' op indices and the values the step needs.
struct PairMatch {
  int first = -1, second = -1;                   // op indices of z's and g's products
  int matrix = -1, vector = -1, z = -1, d = -1;  // value ids (vector: w)
  int64_t contracted = 1;                        // the dim of X z's product contracts
  std::vector<int> chain;                        // ops from z to d, in program order
};

bool is_real_float(DType dtype) { return dtype == DType::kF32 || dtype == DType::kF64; }

// `op` as g's product: X (rank 2, f32 or f64, large enough) and a vector of its dtype.
bool match_second(const Region& region, int k, PairMatch& match) {
  const Op& op = region.ops[static_cast<size_t>(k)];
  if (op.id != OpId::kDotGeneral) return false;
  const std::optional<MatvecProduct> product = matvec_product(op);
  if (!product) return false;
  const Type& x = op.operand_types[static_cast<size_t>(product->matrix)];
  const Type& v = op.operand_types[static_cast<size_t>(1 - product->matrix)];
  if (!is_real_float(x.dtype) || v.dtype != x.dtype || op.result_types[0].dtype != x.dtype) {
    return false;
  }
  if (checked_numel(x.shape) * static_cast<int64_t>(itemsize(x.dtype)) < kMatvecPairMinBytes ||
      x.shape[static_cast<size_t>(product->contracted)] < kMatvecPairMinRows) {
    return false;
  }
  match.second = k;
  match.matrix = op.operands[static_cast<size_t>(product->matrix)];
  match.d = op.operands[static_cast<size_t>(1 - product->matrix)];
  match.contracted = 1 - product->contracted;
  return true;
}

// `op` as z's product (the same X, contracting the dim g's product keeps): its vector's value
// id, or -1.
int match_first(const Op& op, const PairMatch& match, DType dtype) {
  if (op.id != OpId::kDotGeneral || op.result_types[0].dtype != dtype) return -1;
  const std::optional<MatvecProduct> product = matvec_product(op);
  const bool same = product && product->contracted == match.contracted &&
                    op.operands[static_cast<size_t>(product->matrix)] == match.matrix;
  return same ? op.operands[static_cast<size_t>(1 - product->matrix)] : -1;
}

// The ops reading z and what they compute, up to d: every one an open element-wise op of z's
// shape before g's product, reading and read by nothing else but each other (d by g's product
// alone). False otherwise.
bool collect_chain(const Region& region, const RegionGraph& graph,
                   const std::vector<StepFate>& fates, PairMatch& match) {
  const Shape& shape = region.ops[static_cast<size_t>(match.first)].result_types[0].shape;
  std::set<int> chain;
  std::vector<int> pending{match.z};
  while (!pending.empty()) {
    const int value = pending.back();
    pending.pop_back();
    for (int user : users_of(graph, value)) {
      if (user == match.second && value == match.d) continue;
      const Op& op = region.ops[static_cast<size_t>(user)];
      if (user > match.second || fates[static_cast<size_t>(user)] != StepFate::kOpen ||
          !fusible_elementwise(op) || op.result_types[0].shape != shape) {
        return false;
      }
      if (chain.insert(user).second) pending.push_back(op.results[0]);
    }
  }
  match.chain.assign(chain.begin(), chain.end());
  if (match.chain.empty()) return match.d == match.z;
  // d is the chain's last value, read by g's product alone.
  const Op& last = region.ops[static_cast<size_t>(match.chain.back())];
  const std::vector<int>& readers = users_of(graph, match.d);
  return last.results[0] == match.d && readers.size() == 1 && readers[0] == match.second &&
         last.result_types[0].dtype ==
             region.ops[static_cast<size_t>(match.first)].result_types[0].dtype;
}

// z's product for g's (the op defining the chain's start), or false.
bool find_first(const Region& region, const RegionGraph& graph, const std::vector<StepFate>& fates,
                PairMatch& match) {
  const DType dtype = region.ops[static_cast<size_t>(match.second)].result_types[0].dtype;
  // Walk back from d through element-wise ops to a product of X.
  std::vector<int> pending{match.d};
  std::set<int> seen;
  while (!pending.empty()) {
    const int value = pending.back();
    pending.pop_back();
    const int def = defining_op(graph, value);
    if (def < 0 || !seen.insert(def).second || fates[static_cast<size_t>(def)] != StepFate::kOpen) {
      continue;
    }
    const Op& op = region.ops[static_cast<size_t>(def)];
    if (const int vector = match_first(op, match, dtype); vector >= 0) {
      match.first = def;
      match.vector = vector;
      match.z = op.results[0];
      return collect_chain(region, graph, fates, match);
    }
    if (fusible_elementwise(op))
      pending.insert(pending.end(), op.operands.begin(), op.operands.end());
  }
  return false;
}

// The fused step in g's product's place; the chain's plan reads the block's z as leaf z_leaf.
std::optional<Step> make_pair_step(const Region& region, const RegionGraph& graph,
                                   const PairMatch& match, std::vector<int>& absorbed) {
  const Op& first = region.ops[static_cast<size_t>(match.first)];
  const Op& second = region.ops[static_cast<size_t>(match.second)];
  MatvecPairPlan plan;
  plan.dtype = second.result_types[0].dtype;
  plan.contracted = match.contracted;
  Step step;
  step.operands = {match.matrix, match.vector};
  if (!match.chain.empty()) {
    std::optional<GroupPlan> group = plan_group(region, graph, match.chain);
    if (!group) return std::nullopt;
    plan.chain = std::move(group->plan);
    for (FusedLeaf& leaf : plan.chain.leaves) {
      if (leaf.operand < 0) continue;
      const int value = group->operands[static_cast<size_t>(leaf.operand)];
      if (value == match.z) {
        plan.z_leaf = static_cast<int>(&leaf - plan.chain.leaves.data());
        leaf.operand = -1;
        continue;
      }
      auto at = std::find(step.operands.begin(), step.operands.end(), value);
      if (at == step.operands.end()) at = step.operands.insert(step.operands.end(), value);
      leaf.operand = static_cast<int>(at - step.operands.begin());
    }
    absorbed = std::move(group->absorbed);
  }
  step.op = &second;
  step.results = second.results;
  step.matvec_pair = true;
  step.members.push_back(&first);
  for (int k : match.chain) step.members.push_back(&region.ops[static_cast<size_t>(k)]);
  step.members.push_back(&second);
  step.run = matvec_pair_run(std::move(plan));
  return step;
}

}  // namespace

void fuse_matvec_pairs(const Region& region, std::vector<Step>& steps,
                       std::vector<StepFate>& fates) {
  if (steps.size() + 1 != region.ops.size() || fates.size() != steps.size()) return;
  const RegionGraph graph = region_graph(region);
  for (size_t k = 0; k < steps.size(); ++k) {
    PairMatch match;
    if (fates[k] != StepFate::kOpen || !match_second(region, static_cast<int>(k), match) ||
        !find_first(region, graph, fates, match)) {
      continue;
    }
    std::vector<int> absorbed;
    std::optional<Step> step = make_pair_step(region, graph, match, absorbed);
    if (!step) continue;
    fates[static_cast<size_t>(match.first)] = StepFate::kGone;
    for (int op : match.chain) fates[static_cast<size_t>(op)] = StepFate::kGone;
    for (int def : absorbed) {
      const std::vector<int>& users =
          users_of(graph, region.ops[static_cast<size_t>(def)].results[0]);
      const bool only_chain = std::all_of(users.begin(), users.end(), [&](int user) {
        return std::binary_search(match.chain.begin(), match.chain.end(), user);
      });
      if (only_chain) fates[static_cast<size_t>(def)] = StepFate::kGone;
    }
    steps[k] = std::move(*step);
    fates[k] = StepFate::kTaken;
  }
}

}  // namespace ndbuf::program
