// The clusters fusion through reductions takes (row_fusion.hpp): a cluster grows from a
// reduction whose operand an element-wise op computes (or a maximum or minimum that loads its
// operand), over def-use edges in both directions, through the ops that fit its [rows, cols]
// split; it is kept only when it is convex (no op outside it reads one of its values and feeds
// another).
#pragma once

#include <optional>
#include <vector>

#include "program/exec/region_graph.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// The split a cluster shares: values over [rows..., cols...] and over [rows...].
struct RowShape {
  Shape full;
  Shape rows;
  int64_t cols = 1;
  bool operator==(const RowShape& other) const { return full == other.full && rows == other.rows; }
};

// What an op is to a cluster of `shape`: an element-wise op over the full shape or over the
// rows, a reduction of the split, a broadcast of a row value over its rows, or none of these.
enum class Role { kNone, kFull, kRow, kReduce, kRowBroadcast };
Role role_of(const Op& op, const RowShape& shape);

// Whether a reduction of the split may fold a value from outside its cluster (loaded).
bool loads_operand(const Op& op, const RowShape& shape);

// The split of region op k when it seeds a cluster: a row reduction whose operand an
// element-wise op of the split computes, or one that loads its operand.
std::optional<RowShape> seed_shape(const Region& region, const RegionGraph& graph, size_t k);

// Finds the clusters of one region, op by op.
class ClusterFinder {
 public:
  ClusterFinder(const Region& region, const RegionGraph& graph)
      : region_(region), graph_(graph), owner_(region.ops.size(), -1) {}

  // The ops (sorted) of the cluster grown from reduce `seed`, or nothing when it does not hold.
  std::optional<std::vector<int>> grow(int seed, const RowShape& shape, int id);

  bool owned(int k) const { return owner_[static_cast<size_t>(k)] >= 0; }

 private:
  bool admissible(int k, const RowShape& shape) const;
  bool is_member_value(const std::vector<bool>& member, int value) const;
  bool holds(const std::vector<int>& ops, const std::vector<bool>& member,
             const RowShape& shape) const;
  bool convex(int first, const std::vector<bool>& member) const;

  const Region& region_;
  const RegionGraph& graph_;
  std::vector<int> owner_;  // the cluster op k joined, or -1
};

}  // namespace ndbuf::program
