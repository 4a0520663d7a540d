// Tests of block-parallel loops and interrupt polling.
#include "ndbuf/memory/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/harray/harray.hpp"
#include "ndbuf/memory/storage.hpp"

namespace ndbuf {
namespace {

// A fake user interrupt: the poll answers true from its `fire_at`-th call on (1-based; 0 never)
// and records every call and whether it came from the thread that installed it.
std::atomic<int> g_polls{0};
std::atomic<int> g_fire_at{0};
std::atomic<bool> g_foreign_thread{false};
std::thread::id g_installer;

bool fake_poll() {
  if (std::this_thread::get_id() != g_installer) g_foreign_thread = true;
  return ++g_polls >= g_fire_at && g_fire_at > 0;
}

// The last host storage handed out, to see whether an interrupted call released it.
std::weak_ptr<Storage> g_last_storage;
std::shared_ptr<Storage> tracking_allocator(size_t nbytes, Device device) {
  std::shared_ptr<Storage> storage = default_host_allocator(nbytes, device);
  g_last_storage = storage;
  return storage;
}

class Interrupts : public ::testing::Test {
 protected:
  void SetUp() override {
    g_polls = 0;
    g_fire_at = 0;
    g_foreign_thread = false;
    g_installer = std::this_thread::get_id();
    set_interrupt_poll(&fake_poll);
    set_host_allocator(&tracking_allocator);
  }
  void TearDown() override {
    set_interrupt_poll(nullptr);
    set_host_allocator(nullptr);
    EXPECT_FALSE(g_foreign_thread) << "the poll ran off the calling thread";
  }
};

template <class F>
void expect_interrupted(F&& f) {
  try {
    f();
    FAIL() << "expected an interrupt";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInterrupted);
    EXPECT_EQ(std::string(e.what()), "Interrupted by the user.");
  }
}

constexpr int64_t kRound = kInterruptElements;

TEST_F(Interrupts, SmallLoopsNeverPoll) {
  g_fire_at = 1;
  std::vector<int> seen(1000, 0);
  for_each_block(1000, 8, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++seen[i];
  });
  EXPECT_EQ(g_polls, 0);
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST_F(Interrupts, PollsBetweenRoundsOnly) {
  // Three rounds: polled after the first and the second, not after the last.
  const int64_t count = 2 * kRound + 7;
  std::vector<uint8_t> seen(static_cast<size_t>(count), 0);
  for_each_block(count, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++seen[i];
  });
  EXPECT_EQ(g_polls, 2);
  for (int64_t i = 0; i < count; ++i) ASSERT_EQ(seen[i], 1) << i;
}

TEST_F(Interrupts, InterruptStopsBeforeTheNextRound) {
  g_fire_at = 1;
  const int64_t count = 3 * kRound;
  std::vector<uint8_t> seen(static_cast<size_t>(count), 0);
  expect_interrupted([&] {
    for_each_block(count, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) ++seen[i];
    });
  });
  EXPECT_EQ(g_polls, 1);
  EXPECT_EQ(seen[kRound - 1], 1);
  EXPECT_EQ(seen[kRound], 0);  // nothing after the interrupted round ran
}

TEST_F(Interrupts, InterruptedConversionLeavesNoBuffer) {
  // double -> f32 copies into fresh memory; the interrupt must release it, and no buffer is
  // returned (nothing partial).
  g_fire_at = 1;
  const std::vector<double> data(static_cast<size_t>(kRound + 5), 1.5);
  const RVectorView view{RVectorType::kDouble, data.data(), static_cast<int64_t>(data.size())};
  expect_interrupted([&] {
    (void)buffer_from_r(view, DType::kF32, {view.length}, MissingCheck::kWarn, Device{}, nullptr);
  });
  EXPECT_EQ(g_polls, 1);
  EXPECT_TRUE(g_last_storage.expired()) << "the interrupted conversion kept its memory";
  // Without the interrupt the same call completes.
  g_fire_at = 0;
  const BufferFromR made =
      buffer_from_r(view, DType::kF32, {view.length}, MissingCheck::kWarn, Device{}, nullptr);
  EXPECT_EQ(made.tensor.numel(), view.length);
  EXPECT_EQ(static_cast<const float*>(made.tensor.data())[view.length - 1], 1.5f);
}

TEST_F(Interrupts, InterruptedMissingScanMakesNoAlias) {
  // integer -> i32 travels without a copy after a scan for NA; an interrupt during the scan
  // must not make the aliasing storage.
  g_fire_at = 1;
  const std::vector<int32_t> data(static_cast<size_t>(kRound + 5), 7);
  const RVectorView view{RVectorType::kInteger, data.data(), static_cast<int64_t>(data.size())};
  int aliases = 0;
  const AliasStorage alias = [&]() {
    ++aliases;
    return std::make_shared<Storage>(const_cast<int32_t*>(data.data()), data.size() * 4, Device{},
                                     nullptr, true);
  };
  expect_interrupted([&] {
    (void)buffer_from_r(view, DType::kI32, {view.length}, MissingCheck::kWarn, Device{}, alias);
  });
  EXPECT_EQ(aliases, 0);
}

TEST_F(Interrupts, InterruptedReadBackAndCollect) {
  g_fire_at = 1;
  const Tensor t = Tensor::allocate(DType::kF32, {kRound + 5}, Order::kColumnMajor);
  std::vector<double> out(static_cast<size_t>(t.numel()));
  expect_interrupted([&] { (void)convert_to_r(DType::kF32, t.data(), out.data(), t.numel()); });
  // A strided view: every other element of a 2 x (kRound + 5) f32 array, collected.
  g_polls = 0;
  const Tensor wide = Tensor::allocate(DType::kF32, {kRound + 5, 2}, Order::kRowMajor);
  const HArray column = HArray(wide).slice({AxisSlice::range(), AxisSlice::at(1)});
  ASSERT_FALSE(column.is_standard_layout());
  expect_interrupted([&] { copy_to_r_row_major(column.tensor(), out.data()); });
  EXPECT_GE(g_polls, 1);
}

}  // namespace
}  // namespace ndbuf
