// The process grid of a many-device run (StableHLO's "parallel execution"): num_replicas x
// num_partitions processes, each with a (replica, partition) position, numbered replica-major
// (flat = replica * partitions + partition, the spec's flattened id). Collective ops split the
// grid into process groups by one of four strategies; this file computes those groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ndbuf::program {

struct ProcessGrid {
  int replicas = 1;
  int partitions = 1;

  int size() const { return replicas * partitions; }
  int replica_of(int process) const { return process / partitions; }
  int partition_of(int process) const { return process % partitions; }
  int process_at(int replica, int partition) const { return replica * partitions + partition; }
  // "(replica, partition)", as errors name a process.
  std::string name(int process) const;
};

// How a collective reads its replica_groups (the spec's "Collective ops" section).
enum class GroupStrategy : uint8_t {
  kCrossReplica,              // groups of replica ids, repeated for every partition
  kCrossPartition,            // groups of partition ids, repeated for every replica
  kCrossReplicaAndPartition,  // groups of replica ids, each taken across all partitions
  kFlattenedIds,              // groups of flattened process ids
};

// The ids of replica_groups, one list per group; -1 entries (padding of ragged groups) already
// dropped. An empty list of groups means one group of every id.
using IdGroups = std::vector<std::vector<int64_t>>;

// The strategy of all_reduce / all_gather / reduce_scatter: channel_id <= 0 is cross-replica;
// above it, use_global_device_ids picks flattened ids over cross-replica-and-partition.
GroupStrategy replica_group_strategy(int64_t channel_id, bool use_global_device_ids);
// The strategy of all_to_all / collective_permute / collective_broadcast / collective_reduce.
GroupStrategy channel_strategy(int64_t channel_id);

// Every process group, each a list of flat process numbers in the order the strategy gives.
// Throws InvalidArgument when an id is out of range or repeated.
std::vector<std::vector<int>> process_groups(const ProcessGrid& grid, GroupStrategy strategy,
                                             const IdGroups& ids);
// The group that holds `process`, or an empty list when none does (a process the groups leave
// out: collective_broadcast and collective_permute give it zeros).
std::vector<int> group_of(const ProcessGrid& grid, GroupStrategy strategy, const IdGroups& ids,
                          int process);

}  // namespace ndbuf::program
