// The clusters of fusion through reductions (row_clusters.hpp).
#include "program/exec/row_clusters.hpp"

#include <algorithm>
#include <deque>

#include "program/exec/fusion.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/reduce_fast.hpp"

namespace ndbuf::program {
namespace {

bool is_float(DType dtype) {
  return dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF32 ||
         dtype == DType::kF64;
}

bool folds(FastBody body) {
  return body == FastBody::kAdd || body == FastBody::kMultiply || body == FastBody::kMaximum ||
         body == FastBody::kMinimum;
}

// A reduce of one float operand over its trailing dims (at least one dim kept) with an add,
// multiply, maximum or minimum body, its rows short enough for fold_rows.
std::optional<RowShape> row_reduction(const Op& op) {
  if (op.id != OpId::kReduce || op.operands.size() != 2 || op.results.size() != 1 ||
      op.regions.size() != 1) {
    return std::nullopt;
  }
  const Type& in = op.operand_types[0];
  if (!in.is_tensor() || !is_float(in.dtype) || op.operand_types[1] != Type::tensor(in.dtype, {}) ||
      op.result_types[0].dtype != in.dtype || !folds(recognise_body(op.regions[0]))) {
    return std::nullopt;
  }
  std::vector<int64_t> dims = attr_ints(op, "dimensions");
  std::sort(dims.begin(), dims.end());
  const auto rank = static_cast<int64_t>(in.shape.size());
  const auto reduced = static_cast<int64_t>(dims.size());
  if (reduced == 0 || reduced >= rank) return std::nullopt;
  RowShape shape;
  shape.full = in.shape;
  for (int64_t k = 0; k < rank; ++k) {
    if (k < rank - reduced) {
      shape.rows.push_back(in.shape[k]);
    } else if (dims[k - (rank - reduced)] != k) {
      return std::nullopt;
    } else {
      shape.cols *= in.shape[k];
    }
  }
  if (shape.cols < 1 || shape.cols >= kWholeRowFold) return std::nullopt;
  return shape;
}

bool broadcasts_rows(const Op& op, const RowShape& shape) {
  if (op.id != OpId::kBroadcastInDim || op.results.size() != 1) return false;
  if (op.operand_types[0].shape != shape.rows || op.result_types[0].shape != shape.full) {
    return false;
  }
  const std::vector<int64_t> dims = attr_ints(op, "broadcast_dimensions");
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

}  // namespace

Role role_of(const Op& op, const RowShape& shape) {
  if (op.id == OpId::kReduce) {
    const std::optional<RowShape> own = row_reduction(op);
    return own && *own == shape ? Role::kReduce : Role::kNone;
  }
  if (broadcasts_rows(op, shape)) return Role::kRowBroadcast;
  if (!fusible_elementwise(op)) return Role::kNone;
  if (op.result_types[0].shape == shape.full) return Role::kFull;
  if (op.result_types[0].shape == shape.rows) return Role::kRow;
  return Role::kNone;
}

// A maximum or minimum over the last dim alone may fold a value from outside the cluster: it is
// loaded into a register block by block and folded in the order the unfused kernel would take
// for its layout (for these bodies the order changes no bits but for ties of -0 and +0 and NaN
// payloads, which follow the unfused kernel's order too).
bool loads_operand(const Op& op, const RowShape& shape) {
  const FastBody body = recognise_body(op.regions[0]);
  return (body == FastBody::kMaximum || body == FastBody::kMinimum) &&
         shape.full.size() == shape.rows.size() + 1;
}

std::optional<RowShape> seed_shape(const Region& region, const RegionGraph& graph, size_t k) {
  const std::optional<RowShape> shape = row_reduction(region.ops[k]);
  if (!shape) return std::nullopt;
  if (loads_operand(region.ops[k], *shape)) return shape;
  const int def = defining_op(graph, region.ops[k].operands[0]);
  if (def < 0 || role_of(region.ops[static_cast<size_t>(def)], *shape) != Role::kFull) {
    return std::nullopt;
  }
  return shape;
}

// The ops (sorted) of the cluster grown from reduce `seed`, or nothing when it does not hold.
std::optional<std::vector<int>> ClusterFinder::grow(int seed, const RowShape& shape, int id) {
  std::vector<bool> member(region_.ops.size(), false);
  std::deque<int> queue{seed};
  member[static_cast<size_t>(seed)] = true;
  while (!queue.empty()) {
    const Op& op = region_.ops[static_cast<size_t>(queue.front())];
    queue.pop_front();
    const auto visit = [&](int k) {
      if (k < 0 || member[static_cast<size_t>(k)] || owner_[static_cast<size_t>(k)] >= 0) return;
      if (!admissible(k, shape)) return;
      member[static_cast<size_t>(k)] = true;
      queue.push_back(k);
    };
    for (int value : op.operands) visit(defining_op(graph_, value));
    for (int value : op.results) {
      for (int user : users_of(graph_, value)) visit(user);
    }
  }
  std::vector<int> ops;
  for (size_t k = 0; k < member.size(); ++k) {
    if (member[k]) ops.push_back(static_cast<int>(k));
  }
  if (!holds(ops, member, shape)) return std::nullopt;
  for (int k : ops) owner_[static_cast<size_t>(k)] = id;
  return ops;
}

// Fits the split, and for a reduction, folds a value an element-wise op of the split computes
// (a reduction of an argument stays out: nothing fuses into it).
bool ClusterFinder::admissible(int k, const RowShape& shape) const {
  const Op& op = region_.ops[static_cast<size_t>(k)];
  const Role role = role_of(op, shape);
  if (role != Role::kReduce) return role != Role::kNone;
  if (loads_operand(op, shape)) return true;
  const int def = defining_op(graph_, op.operands[0]);
  return def >= 0 && owner_[static_cast<size_t>(def)] < 0 &&
         role_of(region_.ops[static_cast<size_t>(def)], shape) == Role::kFull;
}

bool ClusterFinder::is_member_value(const std::vector<bool>& member, int value) const {
  const int def = defining_op(graph_, value);
  return def >= 0 && member[static_cast<size_t>(def)];
}

// Reductions read values the cluster computes; row broadcasts are read only inside it; no op
// outside it reads a value of it and feeds it.
bool ClusterFinder::holds(const std::vector<int>& ops, const std::vector<bool>& member,
                          const RowShape& shape) const {
  for (int k : ops) {
    const Op& op = region_.ops[static_cast<size_t>(k)];
    const Role role = role_of(op, shape);
    if (role == Role::kReduce && !is_member_value(member, op.operands[0]) &&
        !loads_operand(op, shape)) {
      return false;
    }
    if (role == Role::kRowBroadcast) {
      for (int user : users_of(graph_, op.results[0])) {
        if (!member[static_cast<size_t>(user)]) return false;
      }
    }
  }
  const bool has_full = std::any_of(ops.begin(), ops.end(), [&](int k) {
    return role_of(region_.ops[static_cast<size_t>(k)], shape) == Role::kFull;
  });
  return has_full && convex(ops.front(), member);
}

bool ClusterFinder::convex(int first, const std::vector<bool>& member) const {
  std::vector<bool> tainted(region_.ops.size(), false);
  std::vector<int> uses;
  for (size_t k = static_cast<size_t>(first); k < region_.ops.size(); ++k) {
    uses.clear();
    collect_uses(region_.ops[k], uses);
    bool reads_tainted = false;
    bool reads_cluster = false;
    for (int value : uses) {
      const int def = defining_op(graph_, value);
      if (def < 0) continue;
      reads_tainted = reads_tainted || tainted[static_cast<size_t>(def)];
      reads_cluster = reads_cluster || member[static_cast<size_t>(def)];
    }
    if (member[k]) {
      if (reads_tainted) return false;
    } else {
      tainted[k] = reads_tainted || reads_cluster;
    }
  }
  return true;
}

}  // namespace ndbuf::program
