// Tests of Storage ownership, deleters and the host allocator.
#include "ndbuf/memory/storage.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/block_recycler.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

TEST(Storage, DeleterRunsOnceWhenTheLastOwnerGoes) {
  int calls = 0;
  void* seen = nullptr;
  char block[32];
  {
    auto storage = std::make_shared<Storage>(
        block, sizeof block, Device{Platform::kCpu, 1},
        [&](void* p) {
          ++calls;
          seen = p;
        },
        true);
    EXPECT_EQ(storage->data(), block);
    EXPECT_EQ(storage->nbytes(), 32u);
    EXPECT_EQ(storage->device(), (Device{Platform::kCpu, 1}));
    EXPECT_TRUE(storage->read_only());
    {
      const Tensor view(storage, DType::kF32, {4}, {2}, 1);
      const Tensor other = view.reversed_axes();
      storage.reset();
      EXPECT_EQ(calls, 0);  // the views still hold it
    }
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, block);
}

TEST(Storage, NoDeleterIsAllowed) {
  char block[4];
  { const Storage storage(block, 4, Device{}, nullptr, true); }
  SUCCEED();  // destroying it must not call an empty std::function (that would throw)
}

TEST(AllocateHost, AlignedWritableAndSized) {
  for (size_t nbytes : {size_t{0}, size_t{1}, size_t{63}, size_t{4096}}) {
    const auto storage = allocate_host(nbytes);
    ASSERT_NE(storage->data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(storage->data()) % kHostAlignment, 0u);
    EXPECT_EQ(storage->nbytes(), nbytes);
    EXPECT_FALSE(storage->read_only());
    EXPECT_EQ(storage->device(), Device{});
    std::memset(storage->data(), 0x5A, nbytes);  // writable (ASan checks the extent)
  }
  EXPECT_EQ(allocate_host(8, Device{Platform::kCpu, 3})->device(), (Device{Platform::kCpu, 3}));
}

// Small blocks sit at an offset inside a malloc() chunk: every size up to past the alignment
// and some larger, each aligned and writable to its end, and a block's bytes untouched by
// allocating and releasing its neighbours (each block's offset lives just before it).
TEST(AcquireHostBlock, SmallBlocksAlignedAndIndependent) {
  std::vector<HostBlock> blocks;
  std::vector<size_t> sizes;
  for (size_t nbytes = 0; nbytes <= 2 * kHostAlignment + 1; ++nbytes) sizes.push_back(nbytes);
  for (size_t nbytes : {size_t{400}, size_t{4097}, kRecycleMinBytes - 1}) sizes.push_back(nbytes);
  for (size_t k = 0; k < sizes.size(); ++k) {
    const HostBlock block = acquire_host_block(sizes[k]);
    ASSERT_NE(block.data, nullptr);
    EXPECT_EQ(block.capacity, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block.data) % kHostAlignment, 0u) << sizes[k];
    std::memset(block.data, static_cast<int>(k & 0x7F), sizes[k]);
    blocks.push_back(block);
  }
  for (size_t k = 0; k < blocks.size(); k += 2) release_host_block(blocks[k]);
  for (size_t k = 0; k < blocks.size(); k += 2) blocks[k] = acquire_host_block(sizes[k]);
  for (size_t k = 1; k < blocks.size(); k += 2) {
    const auto* bytes = static_cast<const unsigned char*>(blocks[k].data);
    for (size_t b = 0; b < sizes[k]; ++b) ASSERT_EQ(bytes[b], k & 0x7F) << sizes[k];
  }
  for (const HostBlock& block : blocks) release_host_block(block);
}

TEST(AllocateHost, ImpossibleSizeIsAnOutOfMemoryError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on impossible allocation sizes";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer aborts on impossible allocation sizes";
#endif
#endif
  const size_t huge = size_t{1} << 62;
  try {
    allocate_host(huge);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
    EXPECT_EQ(std::string(e.what()), "Cannot allocate 4611686018427387904 bytes of host memory.");
  }
}

// Large tensors' storage comes from the block recycler: a dead tensor's block is kept mapped
// and the next tensor of about its size gets the same pages.
TEST(AllocateHost, LargeStorageIsRecycledSmallStorageIsNot) {
  unsetenv("PJRT_RECYCLE_MB");
  drop_recycled_blocks();
  const size_t large = 2 * kRecycleMinBytes + 100;
  void* first_data = nullptr;
  {
    const auto first = allocate_host(large);
    first_data = first->data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first_data) % kHostAlignment, 0u);
    std::memset(first_data, 0x11, large);
    EXPECT_EQ(recycled_bytes(), 0u);
  }
  EXPECT_GE(recycled_bytes(), large);
  {
    const auto again = allocate_host(large - 100);  // the same capacity: the same block
    EXPECT_EQ(again->data(), first_data);
    EXPECT_EQ(again->nbytes(), large - 100);
    EXPECT_EQ(recycled_bytes(), 0u);
  }
  drop_recycled_blocks();
  { const auto small = allocate_host(kRecycleMinBytes - 1); }
  EXPECT_EQ(recycled_bytes(), 0u);  // malloc'd and freed, nothing kept
}

int g_custom_calls = 0;

std::shared_ptr<Storage> counting_allocator(size_t nbytes, Device device) {
  ++g_custom_calls;
  return default_host_allocator(nbytes, device);
}

TEST(AllocateHost, ReplaceableAllocator) {
  g_custom_calls = 0;
  set_host_allocator(&counting_allocator);
  const auto storage = allocate_host(16);
  const Tensor t = Tensor::allocate(DType::kF64, {3}, Order::kRowMajor);
  const Tensor copy = make_dense(t.reversed_axes(), Order::kColumnMajor);  // already dense
  set_host_allocator(nullptr);                                             // back to the default
  EXPECT_EQ(g_custom_calls, 2);
  EXPECT_EQ(copy.storage().get(), t.storage().get());
  EXPECT_EQ(storage->nbytes(), 16u);
  EXPECT_EQ(t.storage()->nbytes(), 24u);
  allocate_host(16);
  EXPECT_EQ(g_custom_calls, 2);
}

// An embedding runtime's allocator (R's) may run on its own thread only: allocations made on
// other threads (parallel loops' workers) come from the default allocator.
TEST(AllocateHost, InstalledAllocatorServesOnlyTheInstallingThread) {
  g_custom_calls = 0;
  set_host_allocator(&counting_allocator);
  std::shared_ptr<Storage> from_worker;
  std::thread worker([&] { from_worker = allocate_host(32); });
  worker.join();
  const auto from_installer = allocate_host(8);
  set_host_allocator(nullptr);
  EXPECT_EQ(g_custom_calls, 1);
  ASSERT_NE(from_worker, nullptr);
  EXPECT_EQ(from_worker->nbytes(), 32u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(from_worker->data()) % kHostAlignment, 0u);
  EXPECT_EQ(from_installer->nbytes(), 8u);
}

}  // namespace
}  // namespace ndbuf
