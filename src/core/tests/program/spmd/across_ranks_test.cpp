// Processes of one grid spread over ranks: each "rank" here is a thread with its own
// launch_processes() and an in-process transport (Loopback) standing in for MPI, so the
// exchange between ranks (this rank's members meet, the last one trades bytes with the other
// ranks) is tested without mpirun. Values come from the collectives' definitions, worked out
// here. Also: the parts' byte format, a damaged message, and a rank that never arrives.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/program.hpp"
#include "program/exec/executable.hpp"
#include "program/exec/process_launch.hpp"
#include "program/spmd/part_codec.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f64;
using testing::values;

// Ranks in one process: every call deposits this rank's contribution under (channel, call
// number) and waits, bounded by the limit, for the others'. Folds (in rank order, with the
// caller's body) and block gathers run here too; `native` off makes them decline, as a
// transport without its own collectives does.
class Loopback {
 public:
  explicit Loopback(int size) : size_(size) {}

  std::vector<std::string> meet(int rank, const std::vector<int>& ranks, uint64_t channel,
                                const std::string& mine, const WaitLimit& limit) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto key = std::make_pair(channel, calls_[{rank, channel}]++);
    Meeting& m = meetings_[key];
    m.parts[rank] = mine;
    changed_.notify_all();
    while (true) {
      bool all = true;
      for (int r : ranks) all = all && m.parts.count(r) > 0;
      if (all) break;
      if (changed_.wait_until(lock, limit.deadline) == std::cv_status::timeout) {
        fail(ErrorKind::kDevice, "rank " + std::to_string(rank) + " waited in vain");
      }
    }
    std::vector<std::string> out;
    for (int r : ranks) out.push_back(m.parts[r]);
    return out;
  }

  int size() const { return size_; }
  bool native = true;
  std::atomic<int> native_calls{0};

 private:
  struct Meeting {
    std::map<int, std::string> parts;
  };
  int size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<int, uint64_t>, uint64_t> calls_;
  std::map<std::pair<uint64_t, uint64_t>, Meeting> meetings_;
};

class LoopbackRank final : public RemoteRanks {
 public:
  LoopbackRank(Loopback& hub, int rank) : hub_(hub), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_.size(); }
  std::vector<std::string> allgather(const std::vector<int>& ranks, uint64_t channel,
                                     const std::string& mine, const WaitLimit& limit) override {
    return hub_.meet(rank_, ranks, channel, mine, limit);
  }
  bool allreduce(const Tensor& in, const Tensor& out, const FoldInto& fold,
                 const WaitLimit& limit) override {
    if (!hub_.native) return false;
    const std::vector<std::string> parts = hub_.meet(rank_, all(), kNative, bytes_of(in), limit);
    std::memcpy(out.data(), parts[0].data(), parts[0].size());
    for (size_t r = 1; r < parts.size(); ++r) {
      Tensor incoming = Tensor::allocate(in.dtype(), in.shape(), Order::kRowMajor);
      std::memcpy(incoming.data(), parts[r].data(), parts[r].size());
      fold(out, incoming, out);
    }
    ++hub_.native_calls;
    return true;
  }
  bool allgather_blocks(const Tensor& in, const Tensor& out, const WaitLimit& limit) override {
    if (!hub_.native) return false;
    const std::vector<std::string> parts = hub_.meet(rank_, all(), kNative, bytes_of(in), limit);
    char* at = static_cast<char*>(out.data());
    for (const std::string& p : parts) at = std::copy(p.begin(), p.end(), at);
    ++hub_.native_calls;
    return true;
  }

 private:
  static constexpr uint64_t kNative = 7;
  std::vector<int> all() const {
    std::vector<int> ranks;
    for (int r = 0; r < hub_.size(); ++r) ranks.push_back(r);
    return ranks;
  }
  static std::string bytes_of(const Tensor& t) {
    return std::string(static_cast<const char*>(t.data()), static_cast<size_t>(t.nbytes()));
  }
  Loopback& hub_;
  int rank_;
};

class AcrossRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("PJRT_CPU_DEVICE_COUNT")) saved_ = value;
    setenv("PJRT_CPU_DEVICE_COUNT", "4", 1);
  }
  void TearDown() override {
    if (saved_) {
      setenv("PJRT_CPU_DEVICE_COUNT", saved_->c_str(), 1);
    } else {
      unsetenv("PJRT_CPU_DEVICE_COUNT");
    }
  }

  // Runs `exe` with process p's single argument f64 `inputs[p]`, the processes spread over
  // ranks as `per_rank` says (how many each runs); returns each process's results as f64s, or
  // the error of the first rank that failed.
  static std::vector<std::vector<std::vector<double>>> run(
      Loopback& hub, const Executable& exe, const std::vector<int>& per_rank,
      const std::vector<std::vector<double>>& inputs, std::string* error = nullptr,
      std::chrono::milliseconds timeout = std::chrono::seconds(20), int absent_rank = -1) {
    std::vector<int> first{0};
    for (int n : per_rank) first.push_back(first.back() + n);
    std::vector<std::vector<std::vector<double>>> out(inputs.size());
    std::mutex errors;
    std::vector<std::thread> ranks;
    for (int r = 0; r < static_cast<int>(per_rank.size()); ++r) {
      if (r == absent_rank) continue;
      ranks.emplace_back([&, r] {
        LoopbackRank remote(hub, r);
        RankSpread spread{&remote, first};
        std::vector<ProcessRun> runs;
        for (int p = first[static_cast<size_t>(r)]; p < first[static_cast<size_t>(r) + 1]; ++p) {
          const Device device{Platform::kCpu, p};
          const auto& v = inputs[static_cast<size_t>(p)];
          runs.push_back(
              {exe.main_plan,
               {Value(copy_to(f64({static_cast<int64_t>(v.size())}, v), device, Order::kRowMajor))},
               device});
        }
        try {
          const std::vector<Values> results =
              launch_processes(*exe.program.plan, exe.grid, std::move(runs), timeout, spread);
          for (size_t k = 0; k < results.size(); ++k) {
            for (const Value& v : results[k]) {
              out[static_cast<size_t>(first[static_cast<size_t>(r)]) + k].push_back(
                  values<double>(v.get()));
            }
          }
        } catch (const Error& e) {
          std::lock_guard<std::mutex> lock(errors);
          if (error != nullptr && error->empty()) *error = e.what();
        }
      });
    }
    for (std::thread& t : ranks) t.join();
    return out;
  }

  std::optional<std::string> saved_;
};

const char* const kSumHeader =
    "module @m attributes {mhlo.num_replicas = 4 : i32} {\n"
    "func.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<8xf64>, tensor<2xf64>, "
    "tensor<2xf64>) {\n";

// all_reduce over all four, all_gather of all four, all_reduce within {0, 2} and {1, 3} (one
// member on each rank when two ranks run two processes each), collective_permute 0 -> 1 -> 2
// -> 3 -> 0.
const char* const kFourCollectives =
    "%s = \"stablehlo.all_reduce\"(%x) ({\n"
    "^bb0(%a: tensor<f64>, %b: tensor<f64>):\n"
    "  %0 = stablehlo.add %a, %b : tensor<f64>\n"
    "  stablehlo.return %0 : tensor<f64>\n"
    "}) : (tensor<2xf64>) -> tensor<2xf64>\n"
    "%g = \"stablehlo.all_gather\"(%x) {all_gather_dim = 0 : i64} : (tensor<2xf64>) -> "
    "tensor<8xf64>\n"
    "%h = \"stablehlo.all_reduce\"(%x) ({\n"
    "^bb0(%a: tensor<f64>, %b: tensor<f64>):\n"
    "  %0 = stablehlo.maximum %a, %b : tensor<f64>\n"
    "  stablehlo.return %0 : tensor<f64>\n"
    "}) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<2xf64>) -> "
    "tensor<2xf64>\n"
    "%c = \"stablehlo.collective_permute\"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], "
    "[2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<2xf64>) -> tensor<2xf64>\n"
    "return %s, %g, %h, %c : tensor<2xf64>, tensor<8xf64>, tensor<2xf64>, tensor<2xf64>\n}\n}\n";

std::vector<std::vector<double>> four_inputs() {
  return {{1, 2}, {10, 20}, {100, 200}, {1000, 2000}};
}

void expect_four_collectives(const std::vector<std::vector<std::vector<double>>>& got) {
  const std::vector<double> gathered{1, 2, 10, 20, 100, 200, 1000, 2000};
  const std::vector<std::vector<double>> pair_max{
      {100, 200}, {1000, 2000}, {100, 200}, {1000, 2000}};
  const std::vector<std::vector<double>> permuted{{1000, 2000}, {1, 2}, {10, 20}, {100, 200}};
  ASSERT_EQ(got.size(), 4u);
  for (size_t p = 0; p < 4; ++p) {
    ASSERT_EQ(got[p].size(), 4u) << p;
    EXPECT_EQ(got[p][0], (std::vector<double>{1111, 2222})) << p;
    EXPECT_EQ(got[p][1], gathered) << p;
    EXPECT_EQ(got[p][2], pair_max[p]) << p;
    EXPECT_EQ(got[p][3], permuted[p]) << p;
  }
}

TEST_F(AcrossRanks, TwoRanksOfTwoDevicesExchangeParts) {
  const auto exe = compile(std::string(kSumHeader) + kFourCollectives);
  Loopback hub(2);
  std::string error;
  expect_four_collectives(run(hub, *exe, {2, 2}, four_inputs(), &error));
  EXPECT_EQ(error, "");
  EXPECT_EQ(hub.native_calls, 0);  // two processes a rank: parts cross as bytes
}

TEST_F(AcrossRanks, UnevenRanksExchangeParts) {
  const auto exe = compile(std::string(kSumHeader) + kFourCollectives);
  Loopback hub(3);
  std::string error;
  expect_four_collectives(run(hub, *exe, {1, 2, 1}, four_inputs(), &error));
  EXPECT_EQ(error, "");
}

TEST_F(AcrossRanks, OneDeviceARankUsesTheTransportsOwnCollectives) {
  const auto exe = compile(std::string(kSumHeader) + kFourCollectives);
  for (bool native : {true, false}) {
    Loopback hub(4);
    hub.native = native;
    std::string error;
    expect_four_collectives(run(hub, *exe, {1, 1, 1, 1}, four_inputs(), &error));
    EXPECT_EQ(error, "");
    // Each rank's sum over all four and its gather along dimension 0.
    EXPECT_EQ(hub.native_calls, native ? 8 : 0);
  }
}

TEST_F(AcrossRanks, ARankThatNeverArrivesIsAnErrorOnTheOthers) {
  const auto exe = compile(std::string(kSumHeader) + kFourCollectives);
  Loopback hub(2);
  std::string error;
  run(hub, *exe, {2, 2}, four_inputs(), &error, std::chrono::milliseconds(300), 1);
  // Either of rank 0's processes reports it first.
  EXPECT_TRUE(error.rfind("process (0, 0): ", 0) == 0 || error.rfind("process (1, 0): ", 0) == 0)
      << error;
  EXPECT_NE(error.find("'stablehlo.all_reduce'"), std::string::npos) << error;
  EXPECT_NE(error.find("waited in vain"), std::string::npos) << error;
}

TEST(PartCodec, PartsSurviveTheTripAndDamageIsAnError) {
  PlacedPart a{
      3,
      {"'stablehlo.all_gather' (tensor<2x3xf64>)",
       {f64({2, 3}, {1, 2, 3, 4, 5, 6}), testing::column_major(f64({2, 2}, {1, 2, 3, 4}))}}};
  PlacedPart b{0, {"x", {}}};
  const std::string bytes = encode_parts({&a, &b});
  const std::vector<PlacedPart> back = decode_parts(bytes, "rank 1");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first, 3);
  EXPECT_EQ(back[0].second.what, a.second.what);
  ASSERT_EQ(back[0].second.tensors.size(), 2u);
  EXPECT_EQ(back[0].second.tensors[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values<double>(back[0].second.tensors[0]), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // A strided part arrives dense with the same values.
  EXPECT_EQ(values<double>(back[0].second.tensors[1]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(back[1].first, 0);
  EXPECT_TRUE(back[1].second.tensors.empty());
  // Every cut short of the whole message, and a byte too many, is an error naming the sender.
  for (size_t keep : {size_t{0}, size_t{7}, size_t{40}, bytes.size() - 1}) {
    try {
      decode_parts(bytes.substr(0, keep), "rank 1");
      ADD_FAILURE() << keep;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "a collective's message from rank 1 is damaged");
    }
  }
  EXPECT_THROW(decode_parts(bytes + "x", "rank 1"), Error);
}

TEST(InitDistributed, ABuildWithoutMpiSaysHowToGetIt) {
  EXPECT_FALSE(distributed_info().active);
  if (distributed_info().mpi_built_in) GTEST_SKIP() << "this build has MPI";
  try {
    init_distributed(1);
    ADD_FAILURE() << "joined ranks without MPI";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDevice);
    EXPECT_EQ(std::string(e.what()),
              "this build has no MPI: install Open MPI (Debian: libopenmpi-dev openmpi-bin) and "
              "build again to run programs across processes");
  }
  EXPECT_FALSE(distributed_info().active);
  EXPECT_THROW(init_distributed(0), Error);
}

TEST(RankSpread, FindsEachProcesssRank) {
  Loopback hub(3);
  LoopbackRank remote(hub, 1);
  const RankSpread spread{&remote, {0, 1, 3, 4}};
  EXPECT_EQ(spread.rank_of(0), 0);
  EXPECT_EQ(spread.rank_of(1), 1);
  EXPECT_EQ(spread.rank_of(2), 1);
  EXPECT_EQ(spread.rank_of(3), 2);
  EXPECT_FALSE(spread.is_local(0));
  EXPECT_TRUE(spread.is_local(2));
  EXPECT_FALSE(spread.one_per_rank());
  EXPECT_TRUE((RankSpread{&remote, {0, 1, 2, 3}}).one_per_rank());
}

}  // namespace
}  // namespace ndbuf::program
