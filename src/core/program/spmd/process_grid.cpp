// Process groups of the collective ops (process_grid.hpp), as the StableHLO spec defines them.
#include "program/spmd/process_grid.hpp"

#include <algorithm>

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {
namespace {

// How many ids the strategy's groups draw from.
int id_count(const ProcessGrid& grid, GroupStrategy strategy) {
  switch (strategy) {
    case GroupStrategy::kCrossPartition:
      return grid.partitions;
    case GroupStrategy::kFlattenedIds:
      return grid.size();
    default:
      return grid.replicas;
  }
}

const char* id_kind(GroupStrategy strategy) {
  switch (strategy) {
    case GroupStrategy::kCrossPartition:
      return "partition";
    case GroupStrategy::kFlattenedIds:
      return "process";
    default:
      return "replica";
  }
}

// The groups as written, or one group of every id when none is written; each id checked.
IdGroups checked_ids(const ProcessGrid& grid, GroupStrategy strategy, const IdGroups& ids) {
  const int count = id_count(grid, strategy);
  if (ids.empty()) {
    std::vector<int64_t> all(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) all[static_cast<size_t>(k)] = k;
    return {all};
  }
  std::vector<bool> seen(static_cast<size_t>(count), false);
  for (const auto& group : ids) {
    for (int64_t id : group) {
      if (id < 0 || id >= count) {
        fail(ErrorKind::kInvalidArgument,
             std::string(id_kind(strategy)) + " id " + std::to_string(id) +
                 " in the groups is outside the grid's " + std::to_string(count) + " " +
                 id_kind(strategy) + (count == 1 ? "" : "s"));
      }
      if (seen[static_cast<size_t>(id)]) {
        fail(ErrorKind::kInvalidArgument, std::string(id_kind(strategy)) + " id " +
                                              std::to_string(id) + " is in the groups twice");
      }
      seen[static_cast<size_t>(id)] = true;
    }
  }
  return ids;
}

}  // namespace

std::string ProcessGrid::name(int process) const {
  return "(" + std::to_string(replica_of(process)) + ", " + std::to_string(partition_of(process)) +
         ")";
}

GroupStrategy replica_group_strategy(int64_t channel_id, bool use_global_device_ids) {
  if (channel_id <= 0) return GroupStrategy::kCrossReplica;
  return use_global_device_ids ? GroupStrategy::kFlattenedIds
                               : GroupStrategy::kCrossReplicaAndPartition;
}

GroupStrategy channel_strategy(int64_t channel_id) {
  return channel_id <= 0 ? GroupStrategy::kCrossReplica : GroupStrategy::kCrossPartition;
}

std::vector<std::vector<int>> process_groups(const ProcessGrid& grid, GroupStrategy strategy,
                                             const IdGroups& written) {
  const IdGroups ids = checked_ids(grid, strategy, written);
  std::vector<std::vector<int>> groups;
  for (const auto& group : ids) {
    switch (strategy) {
      case GroupStrategy::kCrossReplica:
        for (int p = 0; p < grid.partitions; ++p) {
          auto& out = groups.emplace_back();
          for (int64_t r : group) out.push_back(grid.process_at(static_cast<int>(r), p));
        }
        break;
      case GroupStrategy::kCrossPartition:
        for (int r = 0; r < grid.replicas; ++r) {
          auto& out = groups.emplace_back();
          for (int64_t p : group) out.push_back(grid.process_at(r, static_cast<int>(p)));
        }
        break;
      case GroupStrategy::kCrossReplicaAndPartition: {
        auto& out = groups.emplace_back();
        for (int p = 0; p < grid.partitions; ++p) {
          for (int64_t r : group) out.push_back(grid.process_at(static_cast<int>(r), p));
        }
        break;
      }
      case GroupStrategy::kFlattenedIds: {
        auto& out = groups.emplace_back();
        for (int64_t id : group) out.push_back(static_cast<int>(id));
        break;
      }
    }
  }
  return groups;
}

std::vector<int> group_of(const ProcessGrid& grid, GroupStrategy strategy, const IdGroups& ids,
                          int process) {
  for (auto& group : process_groups(grid, strategy, ids)) {
    if (std::find(group.begin(), group.end(), process) != group.end()) return group;
  }
  return {};
}

}  // namespace ndbuf::program
