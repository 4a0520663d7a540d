// Programs run on a grid of CPU devices (execute_processes()): a data-parallel SGD step against
// the same step on the whole batch computed here, every collective at every element type against
// values worked out here, and the failures: a peer that fails, disagrees, never arrives, and a
// user interrupt while the processes wait.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f64;
using testing::values;

// Four CPU devices for the grid's processes.
class ExecuteProcesses : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("PJRT_CPU_DEVICE_COUNT")) saved_ = value;
    setenv("PJRT_CPU_DEVICE_COUNT", "4", 1);
  }
  void TearDown() override {
    set_interrupt_poll(nullptr);
    if (saved_) {
      setenv("PJRT_CPU_DEVICE_COUNT", saved_->c_str(), 1);
    } else {
      unsetenv("PJRT_CPU_DEVICE_COUNT");
    }
  }
  static std::vector<Device> devices(int n) {
    std::vector<Device> out;
    for (int k = 0; k < n; ++k) out.push_back(Device{Platform::kCpu, k});
    return out;
  }
  std::optional<std::string> saved_;
};

std::string header(int replicas, int partitions) {
  return "module @m attributes {mhlo.num_replicas = " + std::to_string(replicas) +
         " : i32, mhlo.num_partitions = " + std::to_string(partitions) + " : i32} {\n";
}

// One SGD step of least squares on a shard of `rows` rows: the gradient X'(Xw - y) summed over
// the devices by all_reduce, then w - 0.01 * gradient.
std::string sgd_step(int devices, int rows) {
  const std::string b = std::to_string(rows);
  return header(devices, 1) + "func.func @main(%w: tensor<3xf64>, %x: tensor<" + b +
         "x3xf64>, %y: tensor<" + b +
         "xf64>) -> tensor<3xf64> {\n"
         "%p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<" +
         b + "x3xf64>, tensor<3xf64>) -> tensor<" + b +
         "xf64>\n"
         "%r = stablehlo.subtract %p, %y : tensor<" +
         b +
         "xf64>\n"
         "%g = stablehlo.dot_general %r, %x, contracting_dims = [0] x [0] : (tensor<" +
         b + "xf64>, tensor<" + b +
         "x3xf64>) -> tensor<3xf64>\n"
         "%s = \"stablehlo.all_reduce\"(%g) ({\n"
         "^bb0(%a: tensor<f64>, %c: tensor<f64>):\n"
         "  %0 = stablehlo.add %a, %c : tensor<f64>\n"
         "  stablehlo.return %0 : tensor<f64>\n"
         "}) : (tensor<3xf64>) -> tensor<3xf64>\n"
         "%lr = stablehlo.constant dense<0.01> : tensor<3xf64>\n"
         "%d = stablehlo.multiply %s, %lr : tensor<3xf64>\n"
         "%n = stablehlo.subtract %w, %d : tensor<3xf64>\n"
         "return %n : tensor<3xf64>\n}\n}\n";
}

TEST_F(ExecuteProcesses, DataParallelSgdEqualsTheWholeBatchStep) {
  constexpr int kBatch = 24;
  std::vector<double> x(kBatch * 3), y(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    for (int j = 0; j < 3; ++j) x[static_cast<size_t>(i * 3 + j)] = std::sin(i * 1.3 + j);
    y[static_cast<size_t>(i)] = std::cos(i * 0.7);
  }
  const std::vector<double> w{0.5, -0.25, 0.125};
  // The step on the whole batch, computed here.
  std::vector<double> want = w;
  for (int j = 0; j < 3; ++j) {
    double g = 0;
    for (int i = 0; i < kBatch; ++i) {
      double p = 0;
      for (int k = 0; k < 3; ++k)
        p += x[static_cast<size_t>(i * 3 + k)] * w[static_cast<size_t>(k)];
      g += (p - y[static_cast<size_t>(i)]) * x[static_cast<size_t>(i * 3 + j)];
    }
    want[static_cast<size_t>(j)] -= 0.01 * g;
  }
  for (int n : {2, 4}) {
    const int rows = kBatch / n;
    const auto exe = compile(sgd_step(n, rows));
    EXPECT_EQ(num_replicas(*exe), n);
    EXPECT_EQ(num_partitions(*exe), 1);
    std::vector<std::vector<Tensor>> inputs;
    for (int d = 0; d < n; ++d) {
      const auto first = x.begin() + d * rows * 3;
      inputs.push_back({copy_to(f64({3}, w), Device{Platform::kCpu, d}, Order::kRowMajor),
                        copy_to(f64({rows, 3}, {first, first + rows * 3}),
                                Device{Platform::kCpu, d}, Order::kRowMajor),
                        copy_to(f64({rows}, {y.begin() + d * rows, y.begin() + (d + 1) * rows}),
                                Device{Platform::kCpu, d}, Order::kRowMajor)});
    }
    const auto results = execute_processes(*exe, std::move(inputs), devices(n));
    ASSERT_EQ(results.size(), static_cast<size_t>(n));
    for (int d = 0; d < n; ++d) {
      EXPECT_EQ(results[static_cast<size_t>(d)][0].device(), (Device{Platform::kCpu, d}));
      const std::vector<double> got = values<double>(results[static_cast<size_t>(d)][0]);
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(got[static_cast<size_t>(j)], want[static_cast<size_t>(j)], 1e-13) << n;
      }
      // Every device holds the same bits: the sum runs in one order everywhere.
      EXPECT_EQ(got, values<double>(results[0][0]));
    }
  }
}

// v = 10 * replica + iota(4) in `dtype`, through each collective on 2 replicas, each result read
// back as f64: all_reduce (sum), all_gather, all_to_all, collective_permute (a swap),
// collective_broadcast (from replica 1) and reduce_scatter (sum).
std::string every_collective(const std::string& dtype, bool complex) {
  const auto t = [&](const std::string& shape) { return "tensor<" + shape + dtype + ">"; };
  // `%oN = ` the f64 values of `v` (the real parts of a complex value).
  const std::string part = dtype == "complex<f32>" ? "f32" : "f64";
  const auto back = [&](const std::string& out, const std::string& v, const std::string& shape) {
    if (!complex) {
      return out + " = stablehlo.convert " + v + " : (" + t(shape) + ") -> tensor<" + shape +
             "f64>\n";
    }
    return out + "re = stablehlo.real " + v + " : (" + t(shape) + ") -> tensor<" + shape + part +
           ">\n" + out + " = stablehlo.convert " + out + "re : (tensor<" + shape + part +
           ">) -> tensor<" + shape + "f64>\n";
  };
  const std::string add_region = "({\n^bb0(%a: " + t("") + ", %b: " + t("") +
                                 "):\n  %0 = stablehlo.add %a, %b : " + t("") +
                                 "\n  stablehlo.return %0 : " + t("") + "\n})";
  return header(2, 1) +
         "func.func @main() -> (tensor<4xf64>, tensor<8xf64>, tensor<4xf64>, tensor<4xf64>, "
         "tensor<4xf64>, tensor<2xf64>) {\n"
         "%id = stablehlo.replica_id : tensor<ui32>\n"
         "%r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>\n"
         "%ten = stablehlo.constant dense<10> : tensor<i32>\n"
         "%s = stablehlo.multiply %r, %ten : tensor<i32>\n"
         "%sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<i32>) -> tensor<4xi32>\n"
         "%i = stablehlo.iota dim = 0 : tensor<4xi32>\n"
         "%v32 = stablehlo.add %sb, %i : tensor<4xi32>\n"
         "%v = stablehlo.convert %v32 : (tensor<4xi32>) -> " +
         t("4x") +
         "\n"
         "%sum = \"stablehlo.all_reduce\"(%v) " +
         add_region + " {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (" + t("4x") +
         ") -> " + t("4x") +
         "\n"
         "%all = \"stablehlo.all_gather\"(%v) {all_gather_dim = 0 : i64, replica_groups = "
         "dense<[[0, 1]]> : tensor<1x2xi64>} : (" +
         t("4x") + ") -> " + t("8x") +
         "\n"
         "%a2a = \"stablehlo.all_to_all\"(%v) {split_dimension = 0 : i64, concat_dimension = 0 : "
         "i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (" +
         t("4x") + ") -> " + t("4x") +
         "\n"
         "%swap = \"stablehlo.collective_permute\"(%v) {source_target_pairs = dense<[[0, 1], [1, "
         "0]]> : tensor<2x2xi64>} : (" +
         t("4x") + ") -> " + t("4x") +
         "\n"
         "%bc = \"stablehlo.collective_broadcast\"(%v) {replica_groups = dense<[[1, 0]]> : "
         "tensor<1x2xi64>} : (" +
         t("4x") + ") -> " + t("4x") +
         "\n"
         "%rs = \"stablehlo.reduce_scatter\"(%v) " +
         add_region +
         " {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (" +
         t("4x") + ") -> " + t("2x") + "\n" + back("%o1", "%sum", "4x") +
         back("%o2", "%all", "8x") + back("%o3", "%a2a", "4x") + back("%o4", "%swap", "4x") +
         back("%o5", "%bc", "4x") + back("%o6", "%rs", "2x") +
         "return %o1, %o2, %o3, %o4, %o5, %o6 : tensor<4xf64>, tensor<8xf64>, tensor<4xf64>, "
         "tensor<4xf64>, tensor<4xf64>, tensor<2xf64>\n}\n}\n";
}

TEST_F(ExecuteProcesses, EveryCollectiveOnBooleans) {
  using V = std::vector<double>;
  // As i1, replica 0 holds [false, true, true, true] and replica 1 all true; add is or.
  const auto exe = compile(every_collective("i1", false));
  const auto results = execute_processes(*exe, {{}, {}}, devices(2));
  const std::vector<V> to_all{{0, 1, 1, 1}, {1, 1, 1, 1}};
  const std::vector<V> swapped{{1, 1, 1, 1}, {0, 1, 1, 1}};
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(values<double>(results[r][0]), (V{1, 1, 1, 1}));
    EXPECT_EQ(values<double>(results[r][1]), (V{0, 1, 1, 1, 1, 1, 1, 1}));
    EXPECT_EQ(values<double>(results[r][2]), to_all[r]);
    EXPECT_EQ(values<double>(results[r][3]), swapped[r]);
    EXPECT_EQ(values<double>(results[r][4]), (V{1, 1, 1, 1}));
    EXPECT_EQ(values<double>(results[r][5]), (V{1, 1}));
  }
}

TEST_F(ExecuteProcesses, EveryCollectiveAtEveryElementType) {
  using V = std::vector<double>;
  // Replica r holds [10r, 10r + 1, 10r + 2, 10r + 3].
  const V sum{10, 12, 14, 16}, gathered{0, 1, 2, 3, 10, 11, 12, 13};
  const std::vector<V> to_all{{0, 1, 10, 11}, {2, 3, 12, 13}};
  const std::vector<V> swapped{{10, 11, 12, 13}, {0, 1, 2, 3}};
  const std::vector<V> scattered{{10, 12}, {14, 16}};
  const V broadcast{10, 11, 12, 13};
  for (const char* dtype : {"i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16",
                            "f32", "f64", "complex<f32>", "complex<f64>"}) {
    const bool complex = std::string(dtype).rfind("complex", 0) == 0;
    SCOPED_TRACE(dtype);
    const auto exe = compile(every_collective(dtype, complex));
    const auto results = execute_processes(*exe, {{}, {}}, devices(2));
    for (size_t r = 0; r < 2; ++r) {
      EXPECT_EQ(values<double>(results[r][0]), sum);
      EXPECT_EQ(values<double>(results[r][1]), gathered);
      EXPECT_EQ(values<double>(results[r][2]), to_all[r]);
      EXPECT_EQ(values<double>(results[r][3]), swapped[r]);
      EXPECT_EQ(values<double>(results[r][4]), broadcast);
      EXPECT_EQ(values<double>(results[r][5]), scattered[r]);
    }
  }
}

// all_reduce of 4 MB per process: each of 3 processes folds a third of the elements (several
// chunks) into the one result the members share (split_all_reduce.cpp); the values must be the
// plain fold's.
std::vector<double> as_doubles(const Tensor& t) {
  if (t.dtype() == DType::kF64) return values<double>(t);
  std::vector<double> out;
  if (t.dtype() == DType::kF32) {
    for (float v : values<float>(t)) out.push_back(v);
  } else {
    for (int32_t v : values<int32_t>(t)) out.push_back(v);
  }
  return out;
}

TEST_F(ExecuteProcesses, LargeAllReducesShareTheirWorkAndKeepTheirValues) {
  constexpr int kN = 1000001;  // not a multiple of 3: the ranges differ in size
  const std::string n = std::to_string(kN);
  // f32 and f64 fold through span kernels, the other types a chunk at a time.
  for (const std::string type : {"f32", "f64", "i32"}) {
    for (const std::string body : {"add", "maximum"}) {
      SCOPED_TRACE(type + " " + body);
      const std::string t = "tensor<" + n + "x" + type + ">";
      const std::string scalar = "tensor<" + type + ">";
      const auto exe = compile(
          header(3, 1) + "func.func @main() -> " + t + " {\n" +
          "%id = stablehlo.replica_id : tensor<ui32>\n"
          "%f = stablehlo.convert %id : (tensor<ui32>) -> " +
          scalar + "\n" + "%one = stablehlo.constant dense<1> : " + scalar + "\n" +
          "%k = stablehlo.add %f, %one : " + scalar + "\n" +
          "%kb = stablehlo.broadcast_in_dim %k, dims = [] : (" + scalar + ") -> " + t + "\n" +
          "%i = stablehlo.iota dim = 0 : " + t + "\n" + "%v = stablehlo.multiply %i, %kb : " + t +
          "\n" + "%s = \"stablehlo.all_reduce\"(%v) ({\n^bb0(%a: " + scalar + ", %b: " + scalar +
          "):\n  %0 = stablehlo." + body + " %a, %b : " + scalar + "\n  stablehlo.return %0 : " +
          scalar + "\n}) : (" + t + ") -> " + t + "\n" + "return %s : " + t + "\n}\n}\n");
      const auto results = execute_processes(*exe, {{}, {}, {}}, devices(3));
      // Process r holds i * (r + 1): the sum is 6i, the maximum 3i.
      const double factor = body == "add" ? 6.0 : 3.0;
      for (size_t r = 0; r < 3; ++r) {
        EXPECT_EQ(results[r][0].device(), (Device{Platform::kCpu, static_cast<int>(r)}));
        const std::vector<double> got = as_doubles(results[r][0]);
        ASSERT_EQ(got.size(), static_cast<size_t>(kN));
        size_t wrong = 0;
        for (int i = 0; i < kN; ++i) {
          // i * (r + 1) and their sum are exact in f32 below 2^24: every operand here is.
          wrong += got[static_cast<size_t>(i)] != factor * i ? 1 : 0;
        }
        EXPECT_EQ(wrong, 0U);
      }
    }
  }
}

// The members of a large all_reduce share one result block: process 0 owns it, the others see
// it read-only on their own device. Donating either afterwards must not write into the block
// the other still reads.
TEST_F(ExecuteProcesses, SharedAllReduceResultsAreNeverWrittenInPlace) {
  constexpr int kN = 1 << 19;  // 2 MB of f32, over the split's threshold
  const std::string t = "tensor<" + std::to_string(kN) + "xf32>";
  const auto sum = compile(header(2, 1) + "func.func @main(%x: " + t + ") -> " + t + " {\n" +
                           "%s = \"stablehlo.all_reduce\"(%x) ({\n^bb0(%a: tensor<f32>, %b: "
                           "tensor<f32>):\n  %0 = stablehlo.add %a, %b : tensor<f32>\n"
                           "  stablehlo.return %0 : tensor<f32>\n}) : (" +
                           t + ") -> " + t + "\nreturn %s : " + t + "\n}\n}\n");
  const auto reduce = [&] {
    return execute_processes(*sum,
                             {{testing::f32({kN}, std::vector<float>(kN, 1.0F))},
                              {copy_to(testing::f32({kN}, std::vector<float>(kN, 2.0F)),
                                       Device{Platform::kCpu, 1}, Order::kRowMajor)}},
                             devices(2));
  };
  // Doubling, with the argument donated to the result: in place only on memory it owns alone.
  const std::string doubling = "func.func @main(%x: " + t + " {tf.aliasing_output = 0 : i32}) -> " +
                               t + " {\n%y = stablehlo.add %x, %x : " + t + "\nreturn %y : " + t +
                               "\n}";
  for (int device : {0, 1}) {
    SCOPED_TRACE(device);
    auto results = reduce();
    const Tensor& first = results[0][0];
    const Tensor& second = results[1][0];
    EXPECT_EQ(second.device(), (Device{Platform::kCpu, 1}));
    EXPECT_EQ(first.data(), second.data());
    EXPECT_TRUE(first.storage()->read_only());
    EXPECT_TRUE(second.storage()->read_only());
    const Tensor kept = results[static_cast<size_t>(1 - device)][0];
    std::vector<Tensor> inputs;
    inputs.push_back(std::move(results[static_cast<size_t>(device)][0]));
    const auto doubled =
        execute(*compile(doubling, Device{Platform::kCpu, device}), std::move(inputs));
    EXPECT_NE(doubled[0].data(), kept.data());
    const std::vector<float> got = values<float>(doubled[0]);
    const std::vector<float> still = values<float>(kept);
    EXPECT_EQ(std::count(got.begin(), got.end(), 6.0F), kN);
    EXPECT_EQ(std::count(still.begin(), still.end(), 3.0F), kN);
  }
}

// A program whose replica 1 stops (a failed check) before the all_reduce replica 0 waits in.
std::string failing_peer() {
  return header(2, 1) +
         "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "%id = stablehlo.replica_id : tensor<ui32>\n"
         "check.expect_eq_const %id, dense<0> : tensor<ui32>\n"
         "%s = \"stablehlo.all_reduce\"(%x) ({\n^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
         "  %0 = stablehlo.add %a, %b : tensor<f32>\n  stablehlo.return %0 : tensor<f32>\n"
         "}) : (tensor<2xf32>) -> tensor<2xf32>\n"
         "return %s : tensor<2xf32>\n}\n}\n";
}

std::vector<std::vector<Tensor>> two_inputs() {
  return {{testing::f32({2}, {1, 2})},
          {copy_to(testing::f32({2}, {3, 4}), Device{Platform::kCpu, 1}, Order::kRowMajor)}};
}

std::string failure(const Executable& exe, std::vector<std::vector<Tensor>> inputs,
                    const std::vector<Device>& on, int64_t timeout_ms = 0) {
  try {
    execute_processes(exe, std::move(inputs), on, timeout_ms);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(ExecuteProcesses, AFailedPeerFailsTheRunWithItsOwnError) {
  const auto exe = compile(failing_peer());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(failure(*exe, two_inputs(), devices(2), 60000),
            "process (1, 0): check.expect_eq_const failed at index (): got 1, expected 0");
  // Replica 0 learnt of it at once instead of waiting out its 60 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// Replica 1 returns at once; replica 0's all_gather waits for it.
std::string absent_peer() {
  return header(2, 1) +
         "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
         "%id = stablehlo.replica_id : tensor<ui32>\n"
         "%zero = stablehlo.constant dense<0> : tensor<ui32>\n"
         "%first = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>\n"
         "%r = \"stablehlo.if\"(%first) ({\n"
         "  %g = \"stablehlo.all_gather\"(%x) {all_gather_dim = 0 : i64} : (tensor<2xf32>) -> "
         "tensor<4xf32>\n"
         "  %h = stablehlo.slice %g [0:2] : (tensor<4xf32>) -> tensor<2xf32>\n"
         "  stablehlo.return %h : tensor<2xf32>\n"
         "}, {\n  stablehlo.return %x : tensor<2xf32>\n"
         "}) : (tensor<i1>) -> tensor<2xf32>\n"
         "return %r : tensor<2xf32>\n}\n}\n";
}

TEST_F(ExecuteProcesses, APeerThatNeverArrivesIsAnErrorAfterTheTimeout) {
  const auto exe = compile(absent_peer());
  const std::string error = failure(*exe, two_inputs(), devices(2), 200);
  EXPECT_NE(error.find("process (0, 0): "), std::string::npos) << error;
  EXPECT_NE(error.find("'stablehlo.all_gather' a collective of process (0, 0) waited 200 ms for "
                       "process (1, 0), which never arrived"),
            std::string::npos)
      << error;
}

TEST_F(ExecuteProcesses, WrongDevicesAndArgumentsAreErrors) {
  const auto exe = compile(failing_peer());
  EXPECT_EQ(failure(*exe, two_inputs(), devices(3)),
            "the program runs on 2 devices (2 replica(s) x 1 partition(s)), but 3 were given");
  EXPECT_EQ(failure(*exe, two_inputs(), {Device{Platform::kCpu, 1}, Device{Platform::kCpu, 1}}),
            "device cpu:1 is given for two processes; each needs its own");
  EXPECT_EQ(failure(*exe, two_inputs(), {Device{Platform::kCpu, 1}, Device{Platform::kCpu, 0}}),
            "argument 1 is on device cpu:0, but the program was compiled for device cpu:1");
  try {
    execute(*exe, {testing::f32({2}, {1, 2})});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the program declares 2 processes (2 replica(s) x 1 partition(s)): run it on as "
                 "many devices at once");
  }
  EXPECT_EQ(failure(*exe, {{testing::f32({2}, {1, 2})}, {}}, devices(2)),
            "@main takes 1 arguments but process (1, 0) was given 0");
}

std::atomic<int> g_polls{0};
bool poll_fires_later() { return ++g_polls > 5; }

TEST_F(ExecuteProcesses, AnInterruptWhileWaitingCancelsEveryProcess) {
  // Replica 0 would wait 600 s for its absent peer: the user's interrupt ends the run instead.
  const auto exe = compile(absent_peer());
  g_polls = 0;
  set_interrupt_poll(&poll_fires_later);
  const auto start = std::chrono::steady_clock::now();
  try {
    execute_processes(*exe, two_inputs(), devices(2), 600000);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInterrupted);
    EXPECT_STREQ(e.what(), "Interrupted by the user.");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_GT(g_polls.load(), 5);
}

}  // namespace
}  // namespace ndbuf::program
