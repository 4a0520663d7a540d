// Huge page advice: the aligned interior of a block, and large host allocations.
#include "ndbuf/memory/huge_pages.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ndbuf/memory/storage.hpp"

namespace ndbuf {
namespace {

constexpr uintptr_t kMiB = uintptr_t{1} << 20;

TEST(HugePageInterior, WholeAlignedPagesInsideTheBlock) {
  // Starts on a boundary: every whole 2 MiB page of 5 MiB, the last 1 MiB left out.
  const HugePageRange aligned = huge_page_interior(64 * kMiB, 5 * kMiB);
  EXPECT_EQ(aligned.begin, 64 * kMiB);
  EXPECT_EQ(aligned.nbytes, 4 * kMiB);
  // Starts 16 bytes past a boundary: the first page begins at the next boundary.
  const HugePageRange shifted = huge_page_interior(64 * kMiB + 16, 6 * kMiB);
  EXPECT_EQ(shifted.begin, 66 * kMiB);
  EXPECT_EQ(shifted.nbytes, 4 * kMiB);
  // Exactly the threshold, aligned: two pages.
  EXPECT_EQ(huge_page_interior(2 * kMiB, kHugePageMinBytes).nbytes, 4 * kMiB);
  // Ends exactly on a boundary.
  EXPECT_EQ(huge_page_interior(kMiB, 5 * kMiB).nbytes, 4 * kMiB);
}

TEST(HugePageInterior, SmallBlocksAreLeftAlone) {
  EXPECT_EQ(huge_page_interior(2 * kMiB, kHugePageMinBytes - 1).nbytes, 0u);
  EXPECT_EQ(huge_page_interior(2 * kMiB, 0).nbytes, 0u);
  // Large enough but unaligned at both ends: the one whole page inside.
  const HugePageRange one = huge_page_interior(kMiB + 1, 4 * kMiB);
  EXPECT_EQ(one.begin, 2 * kMiB);
  EXPECT_EQ(one.nbytes, 2 * kMiB);
}

// Sets PJRT_HUGE_PAGES for one test and restores what was there.
class HugePageSetting {
 public:
  explicit HugePageSetting(const char* value) {
    const char* old = std::getenv("PJRT_HUGE_PAGES");
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv("PJRT_HUGE_PAGES", value, 1);
    } else {
      unsetenv("PJRT_HUGE_PAGES");
    }
  }
  ~HugePageSetting() {
    if (had_) {
      setenv("PJRT_HUGE_PAGES", old_.c_str(), 1);
    } else {
      unsetenv("PJRT_HUGE_PAGES");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST(AdviseHugePages, OffUnlessTheVariableIsOne) {
  void* block = allocate_host_bytes(9 * kMiB);
  for (const char* value : {static_cast<const char*>(nullptr), "", "0", "yes", "11"}) {
    const HugePageSetting setting(value);
    EXPECT_FALSE(huge_pages_enabled()) << (value ? value : "unset");
    EXPECT_EQ(advise_huge_pages(block, 9 * kMiB), 0u);
  }
  const HugePageSetting on("1");
  EXPECT_TRUE(huge_pages_enabled());
  free_host_bytes(block);
}

TEST(AdviseHugePages, NeverAdvisesOutsideTheBlock) {
  const HugePageSetting on("1");
  EXPECT_EQ(advise_huge_pages(nullptr, 0), 0u);
  char small[64];
  EXPECT_EQ(advise_huge_pages(small, sizeof small), 0u);
  // A large block: either the interior (where the platform has the advice) or nothing.
  void* block = allocate_host_bytes(9 * kMiB);
  const size_t advised = advise_huge_pages(block, 9 * kMiB);
  const size_t interior = huge_page_interior(reinterpret_cast<uintptr_t>(block), 9 * kMiB).nbytes;
  EXPECT_TRUE(advised == 0 || advised == interior);
  free_host_bytes(block);
}

TEST(AllocateHostBytes, LargeBlocksStartOnAHugePageAndAreWritable) {
  const HugePageSetting on("1");
  for (const size_t nbytes : {kHugePageMinBytes, kHugePageMinBytes + 3, size_t{11} * kMiB}) {
    void* block = allocate_host_bytes(nbytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHugePageBytes, 0u);
    std::memset(block, 0x3C, nbytes);  // every byte writable (ASan checks the extent)
    EXPECT_EQ(static_cast<unsigned char*>(block)[nbytes - 1], 0x3C);
    free_host_bytes(block);
  }
  // Below the threshold only kHostAlignment is promised.
  void* small = allocate_host_bytes(kHugePageMinBytes - 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small) % kHostAlignment, 0u);
  free_host_bytes(small);
}

}  // namespace
}  // namespace ndbuf
