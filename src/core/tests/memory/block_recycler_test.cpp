// The block recycler: which released blocks are kept, which acquisitions reuse them, and the
// limits (size, count, age, fork).
#include "ndbuf/memory/block_recycler.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace ndbuf {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Each test starts and ends with nothing kept and the default limit.
class BlockRecycler : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("PJRT_RECYCLE_MB");
    drop_recycled_blocks();
  }
  void TearDown() override {
    unsetenv("PJRT_RECYCLE_MB");
    drop_recycled_blocks();
  }
};

TEST_F(BlockRecycler, AReleasedBlockServesTheNextAcquisitionOfItsSize) {
  const LargeBlock first = acquire_large_block(5 * kMiB + 3);
  ASSERT_NE(first.data, nullptr);
  EXPECT_GE(first.capacity, 5 * kMiB + 3);
  EXPECT_EQ(first.capacity % (64 * 1024), 0u);
  std::memset(first.data, 0x5a, 5 * kMiB + 3);  // every byte is writable
  release_large_block(first);
  EXPECT_EQ(recycled_bytes(), first.capacity);

  const LargeBlock again = acquire_large_block(5 * kMiB + 3);
  EXPECT_EQ(again.data, first.data);
  EXPECT_EQ(again.capacity, first.capacity);
  EXPECT_EQ(recycled_bytes(), 0u);
  // The pages still hold what was written: nothing was unmapped in between.
  EXPECT_EQ(static_cast<unsigned char*>(again.data)[5 * kMiB], 0x5a);
  release_large_block(again);
}

TEST_F(BlockRecycler, OnlyBlocksWithinAQuarterAboveTheRequestAreReused) {
  const LargeBlock eight = acquire_large_block(8 * kMiB);
  release_large_block(eight);
  // 8 MiB for 6 MiB wastes a third: a fresh block, the kept one stays.
  const LargeBlock six = acquire_large_block(6 * kMiB);
  EXPECT_NE(six.data, eight.data);
  EXPECT_EQ(recycled_bytes(), 8 * kMiB);
  // 8 MiB for 7 MiB wastes a seventh: reused. Nothing smaller than the request is.
  const LargeBlock nine = acquire_large_block(9 * kMiB);
  EXPECT_NE(nine.data, eight.data);
  const LargeBlock seven = acquire_large_block(7 * kMiB);
  EXPECT_EQ(seven.data, eight.data);
  release_large_block(six);
  release_large_block(seven);
  release_large_block(nine);
}

TEST_F(BlockRecycler, KeptSaysWhetherAnAcquisitionWouldReuseAndEveryAcquisitionIsCounted) {
  const size_t before = large_bytes_acquired();
  EXPECT_FALSE(large_block_kept(8 * kMiB));
  const LargeBlock eight = acquire_large_block(8 * kMiB);  // fresh
  EXPECT_EQ(large_bytes_acquired() - before, 8 * kMiB);
  release_large_block(eight);
  EXPECT_TRUE(large_block_kept(8 * kMiB));
  EXPECT_TRUE(large_block_kept(7 * kMiB));                 // within a quarter above
  EXPECT_FALSE(large_block_kept(6 * kMiB));                // a third above: not reused
  EXPECT_FALSE(large_block_kept(9 * kMiB));                // larger than the block
  EXPECT_EQ(recycled_bytes(), 8 * kMiB);                   // asking takes nothing
  const LargeBlock again = acquire_large_block(7 * kMiB);  // kept: counted as well
  EXPECT_EQ(again.data, eight.data);
  EXPECT_EQ(large_bytes_acquired() - before, 15 * kMiB);
  EXPECT_FALSE(large_block_kept(7 * kMiB));
  release_large_block(again);
}

TEST_F(BlockRecycler, TheSmallestFittingBlockIsChosen) {
  const LargeBlock ten = acquire_large_block(10 * kMiB);
  const LargeBlock nine = acquire_large_block(9 * kMiB);
  release_large_block(ten);
  release_large_block(nine);
  const LargeBlock wanted = acquire_large_block(9 * kMiB);
  EXPECT_EQ(wanted.data, nine.data);
  EXPECT_EQ(recycled_bytes(), 10 * kMiB);
  release_large_block(wanted);
}

// Capacities are whole 64 KiB units: a 129 KiB request maps 192 KiB, a third above it. A block
// of the capacity a fresh mapping would have wastes nothing more and is reused.
TEST_F(BlockRecycler, ABlockOfAFreshMappingsCapacityIsReusedWhateverTheRounding) {
  constexpr size_t kKiB = 1024;
  const LargeBlock first = acquire_large_block(129 * kKiB);
  EXPECT_EQ(first.capacity, 192 * kKiB);
  release_large_block(first);
  const LargeBlock again = acquire_large_block(130 * kKiB);
  EXPECT_EQ(again.data, first.data);
  release_large_block(again);
  // 256 KiB for 130 KiB is a unit more than a fresh mapping's: not reused.
  drop_recycled_blocks();
  const LargeBlock larger = acquire_large_block(256 * kKiB);
  release_large_block(larger);
  const LargeBlock fresh = acquire_large_block(130 * kKiB);
  EXPECT_NE(fresh.data, larger.data);
  EXPECT_EQ(fresh.capacity, 192 * kKiB);
  EXPECT_EQ(recycled_bytes(), 256 * kKiB);
  release_large_block(fresh);
}

TEST_F(BlockRecycler, OfEqualBlocksTheLastReleasedIsReusedFirst) {
  const LargeBlock a = acquire_large_block(6 * kMiB);
  const LargeBlock b = acquire_large_block(6 * kMiB);
  const LargeBlock c = acquire_large_block(6 * kMiB);
  release_large_block(a);
  release_large_block(c);
  release_large_block(b);
  const LargeBlock first = acquire_large_block(6 * kMiB);
  const LargeBlock second = acquire_large_block(6 * kMiB);
  const LargeBlock third = acquire_large_block(6 * kMiB);
  EXPECT_EQ(first.data, b.data);
  EXPECT_EQ(second.data, c.data);
  EXPECT_EQ(third.data, a.data);
  release_large_block(first);
  release_large_block(second);
  release_large_block(third);
}

TEST_F(BlockRecycler, TheLimitEvictsTheOldestAndZeroKeepsNothing) {
  setenv("PJRT_RECYCLE_MB", "12", 1);
  EXPECT_EQ(recycle_limit_bytes(), 12 * kMiB);
  const LargeBlock older = acquire_large_block(8 * kMiB);
  const LargeBlock newer = acquire_large_block(8 * kMiB);
  release_large_block(older);
  release_large_block(newer);  // 16 MiB would exceed 12: the older one goes
  EXPECT_EQ(recycled_bytes(), 8 * kMiB);
  EXPECT_EQ(acquire_large_block(8 * kMiB).data, newer.data);
  release_large_block(newer);

  const LargeBlock too_big = acquire_large_block(16 * kMiB);
  release_large_block(too_big);  // larger than the whole limit: unmapped, the kept one stays
  EXPECT_EQ(recycled_bytes(), 8 * kMiB);

  // Lowering the limit applies to the blocks kept already at the next release.
  const LargeBlock four = acquire_large_block(4 * kMiB);
  setenv("PJRT_RECYCLE_MB", "0", 1);
  release_large_block(four);
  EXPECT_EQ(recycled_bytes(), 0u);
  const LargeBlock block = acquire_large_block(8 * kMiB);
  release_large_block(block);
  EXPECT_EQ(recycled_bytes(), 0u);
}

TEST_F(BlockRecycler, LimitSettingsThatAreNotWholeMebibytesMeanTheDefault) {
  for (const char* setting : {"", "lots", "-5", "12.5", "7x"}) {
    setenv("PJRT_RECYCLE_MB", setting, 1);
    EXPECT_EQ(recycle_limit_bytes(), 1024 * kMiB) << "setting '" << setting << "'";
  }
  setenv("PJRT_RECYCLE_MB", "2048", 1);
  EXPECT_EQ(recycle_limit_bytes(), 2048 * kMiB);
}

TEST_F(BlockRecycler, AtMostTheBlockCountIsKept) {
  std::vector<LargeBlock> blocks(kRecycleMaxBlocks + 1);
  for (LargeBlock& block : blocks) block = acquire_large_block(kMiB);
  for (const LargeBlock& block : blocks) release_large_block(block);
  EXPECT_EQ(recycled_bytes(), kRecycleMaxBlocks * kMiB);
  // The first released (oldest) is the one that went.
  std::vector<LargeBlock> reused(kRecycleMaxBlocks);
  for (LargeBlock& block : reused) {
    block = acquire_large_block(kMiB);
    EXPECT_NE(block.data, blocks[0].data);
  }
  EXPECT_EQ(recycled_bytes(), 0u);
  for (const LargeBlock& block : reused) release_large_block(block);
}

TEST_F(BlockRecycler, BlocksUnusedLongerThanTheDecayAreUnmapped) {
  release_large_block(acquire_large_block(4 * kMiB));
  expire_recycled_blocks(60.0);
  EXPECT_EQ(recycled_bytes(), 4 * kMiB);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  expire_recycled_blocks(0.01);
  EXPECT_EQ(recycled_bytes(), 0u);
}

TEST_F(BlockRecycler, AForkedChildDoesNotReuseItsParentsBlocks) {
  const LargeBlock kept = acquire_large_block(4 * kMiB);
  std::memset(kept.data, 0x77, 4 * kMiB);
  release_large_block(kept);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Exit status 0 only when the child sees nothing kept and gets a fresh block: zeroed by
    // the kernel, where the parent's copy-on-write block would read 0x77 (a fresh mapping
    // may well land at the same address).
    const bool none_kept = recycled_bytes() == 0;
    const LargeBlock block = acquire_large_block(4 * kMiB);
    const bool fresh = block.data != nullptr && static_cast<unsigned char*>(block.data)[0] == 0;
    _exit(none_kept && fresh ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent still has it.
  EXPECT_EQ(recycled_bytes(), kept.capacity);
}

TEST_F(BlockRecycler, ReleasingNothingIsANoOp) {
  release_large_block({nullptr, 0});
  EXPECT_EQ(recycled_bytes(), 0u);
}

}  // namespace
}  // namespace ndbuf
