// Process groups of the collective ops against the examples of the StableHLO spec's "Collective
// ops" section (flat process numbers: replica * partitions + partition).
#include "program/spmd/process_grid.hpp"

#include <gtest/gtest.h>

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {
namespace {

using Groups = std::vector<std::vector<int>>;

TEST(ProcessGroups, CrossReplicaRepeatsEachGroupForEveryPartition) {
  // Spec: replica_groups [[0, 1], [2, 3]], 2 partitions ->
  // [[(0,0),(1,0)], [(0,1),(1,1)], [(2,0),(3,0)], [(2,1),(3,1)]].
  const ProcessGrid grid{4, 2};
  EXPECT_EQ(process_groups(grid, GroupStrategy::kCrossReplica, {{0, 1}, {2, 3}}),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
}

TEST(ProcessGroups, CrossPartitionRepeatsEachGroupForEveryReplica) {
  // Spec: partition_groups [[0, 1]], 4 replicas -> [[(0,0),(0,1)], [(1,0),(1,1)], ...].
  const ProcessGrid grid{4, 2};
  EXPECT_EQ(process_groups(grid, GroupStrategy::kCrossPartition, {{0, 1}}),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
}

TEST(ProcessGroups, CrossReplicaAndPartitionTakesEachGroupAcrossAllPartitions) {
  // Spec: [[0, 1], [2, 3]], 2 partitions -> [[(0,0),(1,0),(0,1),(1,1)], [(2,0),(3,0),(2,1),(3,1)]].
  const ProcessGrid grid{4, 2};
  EXPECT_EQ(process_groups(grid, GroupStrategy::kCrossReplicaAndPartition, {{0, 1}, {2, 3}}),
            (Groups{{0, 2, 1, 3}, {4, 6, 5, 7}}));
}

TEST(ProcessGroups, FlattenedIdsAreProcessNumbers) {
  const ProcessGrid grid{4, 2};
  EXPECT_EQ(process_groups(grid, GroupStrategy::kFlattenedIds, {{0, 1, 2, 3}, {4, 5, 6, 7}}),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(ProcessGroups, NoGroupsMeansOneGroupOfEveryId) {
  EXPECT_EQ(process_groups(ProcessGrid{3, 1}, GroupStrategy::kCrossReplica, {}),
            (Groups{{0, 1, 2}}));
  EXPECT_EQ(group_of(ProcessGrid{2, 2}, GroupStrategy::kCrossPartition, {}, 3),
            (std::vector<int>{2, 3}));
}

TEST(ProcessGroups, AProcessLeftOutHasNoGroup) {
  EXPECT_TRUE(group_of(ProcessGrid{4, 1}, GroupStrategy::kCrossReplica, {{2, 1}}, 0).empty());
  EXPECT_EQ(group_of(ProcessGrid{4, 1}, GroupStrategy::kCrossReplica, {{2, 1}}, 1),
            (std::vector<int>{2, 1}));
}

TEST(ProcessGroups, IdsOutsideTheGridOrRepeatedAreErrors) {
  try {
    process_groups(ProcessGrid{2, 1}, GroupStrategy::kCrossReplica, {{0, 2}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "replica id 2 in the groups is outside the grid's 2 replicas");
  }
  try {
    process_groups(ProcessGrid{1, 3}, GroupStrategy::kCrossPartition, {{0, 1}, {1}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "partition id 1 is in the groups twice");
  }
}

TEST(ProcessGroups, StrategiesFollowChannelAndGlobalIds) {
  EXPECT_EQ(replica_group_strategy(0, false), GroupStrategy::kCrossReplica);
  EXPECT_EQ(replica_group_strategy(1, false), GroupStrategy::kCrossReplicaAndPartition);
  EXPECT_EQ(replica_group_strategy(1, true), GroupStrategy::kFlattenedIds);
  EXPECT_EQ(channel_strategy(0), GroupStrategy::kCrossReplica);
  EXPECT_EQ(channel_strategy(2), GroupStrategy::kCrossPartition);
}

}  // namespace
}  // namespace ndbuf::program
