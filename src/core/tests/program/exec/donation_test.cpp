// Donation (execute()'s ExecuteOptions): a donated argument's memory becomes its aliased
// result's when the run holds it alone, and never when anything else can see it. Expected
// values are worked out by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/program.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using testing::f32;
using testing::values;

// `body` computes %r from %x (donated to result 0) and %y, both tensor<4xf32>.
std::string donating(const std::string& body, const std::string& x_type = "tensor<4xf32>") {
  return "func.func @main(%x: " + x_type + " {tf.aliasing_output = 0 : i32}, %y: " + x_type +
         ") -> " + x_type + " {\n" + body + "\n  return %r : " + x_type + "\n}";
}

const std::string kMultiply = donating("  %r = stablehlo.multiply %x, %y : tensor<4xf32>");
// add and multiply with a splat constant: one fused op.
const std::string kFused = donating(
    "  %c = stablehlo.constant dense<1.0> : tensor<4xf32>\n"
    "  %0 = stablehlo.add %x, %c : tensor<4xf32>\n"
    "  %r = stablehlo.multiply %0, %y : tensor<4xf32>");

const void* address(const Tensor& t) { return t.data(); }

// The inputs of a run that owns them (an initializer list would keep copies of its own).
std::vector<Tensor> given(Tensor a) {
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(a));
  return inputs;
}

std::vector<Tensor> given(Tensor a, Tensor b) {
  std::vector<Tensor> inputs = given(std::move(a));
  inputs.push_back(std::move(b));
  return inputs;
}

TEST(Donation, AnElementwiseResultTakesTheMemoryOfItsDonatedArgument) {
  const auto e = compile(kMultiply);
  Tensor x = f32({4}, {1, 2, 3, 4});
  const void* memory = address(x);
  const auto out = execute(*e, given(std::move(x), f32({4}, {10, 20, 30, 40})));
  EXPECT_EQ(address(out[0]), memory);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{10, 40, 90, 160}));
}

TEST(Donation, AFusedResultTakesTheMemoryOfItsDonatedArgument) {
  for (const bool fuse : {true, false}) {
    CompileOptions options;
    options.fuse_elementwise = fuse;
    const auto e = compile(kFused, Device{}, options);
    Tensor x = f32({4}, {1, 2, 3, 4});
    const void* memory = address(x);
    const auto out = execute(*e, given(std::move(x), f32({4}, {2, 2, 0.5, -1})));
    // (x + 1) * y: 4, 6, 2, -5; fused, the sum lands in the memory as well.
    EXPECT_EQ(values<float>(out[0]), (std::vector<float>{4, 6, 2, -5}));
    if (fuse) {
      EXPECT_EQ(address(out[0]), memory);
    }
  }
}

TEST(Donation, LargeFusedUpdatesRunInPlaceOverParallelBlocks) {
  // x * 0.5 + 1 over 2^20 f32 (the tile path) and f16 (the block path), in place.
  for (const std::string type : {"f32", "f16"}) {
    const std::string t = "tensor<1048576x" + type + ">";
    const std::string text =
        "func.func @main(%x: " + t + " {tf.aliasing_output = 0 : i32}) -> " + t + " {\n" +
        "  %h = stablehlo.constant dense<0.5> : " + t + "\n  %one = stablehlo.constant " +
        "dense<1.0> : " + t + "\n  %0 = stablehlo.multiply %x, %h : " + t +
        "\n  %r = stablehlo.add %0, %one : " + t + "\n  return %r : " + t + "\n}";
    std::vector<double> input(1 << 20);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<double>(i % 1000);
    Tensor x = type == "f32" ? f32({1 << 20}, std::vector<float>(input.begin(), input.end()))
                             : testing::f16({1 << 20}, input);
    const void* memory = address(x);
    const auto out = execute(*compile(text), given(std::move(x)));
    EXPECT_EQ(address(out[0]), memory) << type;
    std::vector<double> got;
    if (type == "f32") {
      const std::vector<float> floats = values<float>(out[0]);
      got.assign(floats.begin(), floats.end());
    } else {
      got = testing::half_values(out[0]);
    }
    size_t wrong = 0;
    for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != input[i] * 0.5 + 1 ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << type;
  }
}

TEST(Donation, AnArgumentReturnedAsItIsIsTheResult) {
  const std::string text =
      "func.func @main(%x: tensor<3xf32> {tf.aliasing_output = 0 : i32}) -> tensor<3xf32> {\n"
      "  return %x : tensor<3xf32>\n}";
  Tensor x = f32({3}, {7, 8, 9});
  const void* memory = address(x);
  const auto out = execute(*compile(text), given(std::move(x)));
  EXPECT_EQ(address(out[0]), memory);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{7, 8, 9}));
}

TEST(Donation, TheCallersHandleIsReleasedThroughTheCallbackOnce) {
  const auto e = compile(kMultiply);
  std::optional<Tensor> held = f32({4}, {1, 2, 3, 4});
  const void* memory = address(*held);
  std::vector<size_t> calls;
  ExecuteOptions options;
  options.on_donated = [&](size_t k) {
    calls.push_back(k);
    held.reset();
  };
  const auto out = execute(*e, given(*held, f32({4}, {1, 1, 1, 1})), options);
  EXPECT_EQ(calls, (std::vector<size_t>{0}));
  EXPECT_FALSE(held.has_value());
  EXPECT_EQ(address(out[0]), memory);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Donation, MemoryAnotherOwnerSeesIsNeverWritten) {
  const auto e = compile(kMultiply);
  // The caller keeps its tensor (and drops nothing when told).
  const Tensor kept = f32({4}, {1, 2, 3, 4});
  auto out = execute(*e, {kept, f32({4}, {2, 2, 2, 2})});
  EXPECT_NE(address(out[0]), address(kept));
  EXPECT_EQ(values<float>(kept), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 4, 6, 8}));
  // The same tensor passed twice: x * x.
  Tensor twice = f32({4}, {1, 2, 3, 4});
  const Tensor view = twice;
  out = execute(*e, given(view, std::move(twice)));
  EXPECT_NE(address(out[0]), address(view));
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 4, 9, 16}));
  EXPECT_EQ(values<float>(view), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Donation, ReadOnlyMemoryIsNeverWritten) {
  std::vector<float> foreign = {1, 2, 3, 4};
  auto storage = std::make_shared<Storage>(foreign.data(), foreign.size() * sizeof(float), Device{},
                                           nullptr, true);
  Tensor x = Tensor::dense(std::move(storage), DType::kF32, {4}, Order::kRowMajor);
  const auto out = execute(*compile(kMultiply), given(std::move(x), f32({4}, {3, 3, 3, 3})));
  EXPECT_NE(address(out[0]), foreign.data());
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{3, 6, 9, 12}));
  EXPECT_EQ(foreign, (std::vector<float>{1, 2, 3, 4}));
}

TEST(Donation, AValueSharingTheMemoryInsideTheProgramKeepsIt) {
  // %v (a call returning its argument) holds x's memory beyond the multiply.
  const std::string text =
      "func.func @id(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n"
      "func.func @main(%x: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %y: tensor<4xf32>)"
      " -> (tensor<4xf32>, tensor<4xf32>) {\n"
      "  %v = func.call @id(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %r = stablehlo.multiply %x, %y : tensor<4xf32>\n"
      "  return %r, %v : tensor<4xf32>, tensor<4xf32>\n}";
  Tensor x = f32({4}, {1, 2, 3, 4});
  const void* memory = address(x);
  const auto out = execute(*compile(text), given(std::move(x), f32({4}, {5, 5, 5, 5})));
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{5, 10, 15, 20}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_NE(address(out[0]), memory);
}

TEST(Donation, AFusedGroupReadingTheArgumentThroughABroadcastGetsFreshMemory) {
  // broadcast_in_dim with dims [1, 0] reads x transposed: writing in place would overwrite
  // elements still to be read.
  const std::string t = "tensor<3x3xf32>";
  const std::string text = "func.func @main(%x: " + t + " {tf.aliasing_output = 0 : i32}) -> " + t +
                           " {\n" + "  %b = stablehlo.broadcast_in_dim %x, dims = [1, 0] : (" + t +
                           ") -> " + t + "\n" + "  %r = stablehlo.add %x, %b : " + t +
                           "\n  return %r : " + t + "\n}";
  Tensor x = f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const void* memory = address(x);
  const auto out = execute(*compile(text), given(std::move(x)));
  // x + transpose(x)
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 6, 10, 6, 10, 14, 10, 14, 18}));
  EXPECT_NE(address(out[0]), memory);
}

TEST(Donation, AColumnMajorArgumentKeepsItsMemory) {
  const std::string t = "tensor<2x2xf32>";
  const std::string text = donating("  %r = stablehlo.add %x, %y : " + t, t);
  // Column-major [[1, 3], [2, 4]] stored as 1, 2, 3, 4.
  Tensor x = Tensor::allocate(DType::kF32, {2, 2}, Order::kColumnMajor);
  const float column_major[] = {1, 2, 3, 4};
  std::memcpy(x.data(), column_major, sizeof column_major);
  const void* memory = address(x);
  const auto out = execute(*compile(text), given(std::move(x), f32({2, 2}, {10, 20, 30, 40})));
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{11, 23, 32, 44}));
  EXPECT_NE(address(out[0]), memory);
}

TEST(Donation, ExcludedArgumentsAreNotDonated) {
  const auto e = compile(kMultiply);
  ExecuteOptions options;
  options.non_donatable_input_indices = {0};
  EXPECT_EQ(donated_arguments(*e, options), (std::vector<bool>{false, false}));
  EXPECT_EQ(donated_arguments(*e, {}), (std::vector<bool>{true, false}));
  bool called = false;
  options.on_donated = [&](size_t) { called = true; };
  Tensor x = f32({4}, {1, 2, 3, 4});
  const void* memory = address(x);
  const auto out = execute(*e, given(std::move(x), f32({4}, {1, 1, 1, 1})), options);
  EXPECT_FALSE(called);
  EXPECT_NE(address(out[0]), memory);
  options.non_donatable_input_indices = {2};
  try {
    donated_arguments(*e, options);
    ADD_FAILURE() << "an index past the arguments was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::kInvalidArgument);
    EXPECT_STREQ(error.what(),
                 "non_donatable_input_indices names argument 2 (0-based), but @main has 2 "
                 "arguments");
  }
}

TEST(Donation, ArgumentErrorsReleaseNothing) {
  const auto e = compile(kMultiply);
  bool called = false;
  ExecuteOptions options;
  options.on_donated = [&](size_t) { called = true; };
  EXPECT_THROW(execute(*e, {f32({4}, {1, 2, 3, 4}), f32({3}, {1, 2, 3})}, options), Error);
  EXPECT_FALSE(called);
}

TEST(Donation, ARunFailingBeforeTheWriteLeavesTheArgumentWithItsCaller) {
  const std::string check = "  check.expect_eq_const %y, dense<0.0> : tensor<4xf32>";
  const std::string multiply = "  %r = stablehlo.multiply %x, %y : tensor<4xf32>";
  for (const bool check_first : {true, false}) {
    const auto e =
        compile(donating(check_first ? check + "\n" + multiply : multiply + "\n" + check));
    std::optional<Tensor> held = f32({4}, {1, 2, 3, 4});
    std::vector<size_t> calls;
    ExecuteOptions options;
    options.on_donated = [&](size_t k) {
      calls.push_back(k);
      held.reset();
    };
    EXPECT_THROW(execute(*e, given(*held, f32({4}, {1, 1, 1, 1})), options), Error);
    if (check_first) {
      // Nothing was written: the caller keeps its tensor, unchanged.
      EXPECT_TRUE(calls.empty());
      ASSERT_TRUE(held.has_value());
      EXPECT_EQ(values<float>(*held), (std::vector<float>{1, 2, 3, 4}));
    } else {
      // The product was written into the memory before the check failed: it was given up.
      EXPECT_EQ(calls, (std::vector<size_t>{0}));
      EXPECT_FALSE(held.has_value());
    }
  }
}

// ---- devices -----------------------------------------------------------------------------

TEST(ExecutableDevice, ResultsOfACpu1ExecutableAreMadeOnCpu1WithoutACopy) {
  const Device cpu1{Platform::kCpu, 1};
  const std::vector<std::string> bodies = {
      "%r = stablehlo.add %x, %x : tensor<2x2xf32>",
      "%c = stablehlo.constant dense<2.0> : tensor<2x2xf32>\n"
      "  %0 = stablehlo.multiply %x, %c : tensor<2x2xf32>\n"
      "  %r = stablehlo.add %0, %c : tensor<2x2xf32>",
      "%r = stablehlo.dot_general %x, %x, contracting_dims = [1] x [0] : "
      "(tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
      "%r = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>",
  };
  for (const std::string& body : bodies) {
    const std::string text = "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n  " +
                             body + "\n  return %r : tensor<2x2xf32>\n}";
    const auto e = compile(text, cpu1);
    Tensor x = Tensor::allocate(DType::kF32, {2, 2}, Order::kRowMajor, cpu1);
    const float data[] = {1, 2, 3, 4};
    std::memcpy(x.data(), data, sizeof data);
    const int64_t copies = result_copy_count();
    const auto out = execute(*e, {x});
    EXPECT_EQ(out[0].device(), cpu1) << body;
    EXPECT_EQ(result_copy_count(), copies) << body;
  }
  // The values: x + x, and the dot product [[7, 10], [15, 22]].
  Tensor x = Tensor::allocate(DType::kF32, {2, 2}, Order::kRowMajor, cpu1);
  const float data[] = {1, 2, 3, 4};
  std::memcpy(x.data(), data, sizeof data);
  const std::string dot = "func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n  " +
                          bodies[2] + "\n  return %r : tensor<2x2xf32>\n}";
  EXPECT_EQ(values<float>(execute(*compile(dot, cpu1), {x})[0]),
            (std::vector<float>{7, 10, 15, 22}));
}

TEST(ExecutableDevice, AReturnedConstantIsCopiedOntoTheDevice) {
  const Device cpu1{Platform::kCpu, 1};
  const std::string text =
      "func.func @main() -> tensor<2xf32> {\n"
      "  %c = stablehlo.constant dense<[1.5, 2.5]> : tensor<2xf32>\n"
      "  return %c : tensor<2xf32>\n}";
  const auto e = compile(text, cpu1);
  const int64_t copies = result_copy_count();
  const auto first = execute(*e, {});
  const auto second = execute(*e, {});
  // The program keeps its constant: each run hands out a copy of it, on cpu:1.
  EXPECT_EQ(result_copy_count(), copies + 2);
  EXPECT_EQ(first[0].device(), cpu1);
  EXPECT_NE(address(first[0]), address(second[0]));
  EXPECT_EQ(values<float>(second[0]), (std::vector<float>{1.5, 2.5}));
}

// iota is a broadcast view of one period of counts: returned, it is made dense once, on the
// executable's device. A column-major dense result (a row gather of a column-major table) is
// handed out as it is.
TEST(ExecutableDevice, AReturnedIotaIsMadeDenseAColumnMajorResultIsNot) {
  const Device cpu1{Platform::kCpu, 1};
  const auto iota = compile(
      "func.func @main() -> tensor<2x3xf32> {\n"
      "  %r = stablehlo.iota dim = 1 : tensor<2x3xf32>\n"
      "  return %r : tensor<2x3xf32>\n}",
      cpu1);
  int64_t copies = result_copy_count();
  const auto counts = execute(*iota, {});
  EXPECT_EQ(result_copy_count(), copies + 1);
  EXPECT_EQ(counts[0].device(), cpu1);
  EXPECT_TRUE(counts[0].is_contiguous(Order::kRowMajor));
  EXPECT_EQ(values<float>(counts[0]), (std::vector<float>{0, 1, 2, 0, 1, 2}));

  const auto rows = compile(
      "func.func @main(%t: tensor<3x2xf32>, %i: tensor<2x1xi32>) -> tensor<2x2xf32> {\n"
      "  %r = \"stablehlo.gather\"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = "
      "[1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, "
      "slice_sizes = array<i64: 1, 2>} : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x2xf32>\n"
      "  return %r : tensor<2x2xf32>\n}",
      cpu1);
  Tensor table = Tensor::allocate(DType::kF32, {3, 2}, Order::kColumnMajor, cpu1);
  const float column_major[] = {1, 2, 3, 4, 5, 6};  // rows (1, 4), (2, 5), (3, 6)
  std::memcpy(table.data(), column_major, sizeof column_major);
  Tensor index = Tensor::allocate(DType::kI32, {2, 1}, Order::kRowMajor, cpu1);
  const int32_t picks[] = {2, 0};
  std::memcpy(index.data(), picks, sizeof picks);
  copies = result_copy_count();
  const auto picked = execute(*rows, {table, index});
  EXPECT_EQ(result_copy_count(), copies);
  EXPECT_TRUE(picked[0].is_contiguous(Order::kColumnMajor));
  EXPECT_EQ(values<float>(picked[0]), (std::vector<float>{3, 6, 1, 4}));
}

TEST(ExecutableDevice, DonationOnCpu1KeepsTheMemoryAndTheDevice) {
  const Device cpu1{Platform::kCpu, 1};
  Tensor x = Tensor::allocate(DType::kF32, {4}, Order::kRowMajor, cpu1);
  const float data[] = {1, 2, 3, 4};
  std::memcpy(x.data(), data, sizeof data);
  Tensor y = Tensor::allocate(DType::kF32, {4}, Order::kRowMajor, cpu1);
  std::memcpy(y.data(), data, sizeof data);
  const void* memory = address(x);
  const auto out = execute(*compile(kFused, cpu1), given(std::move(x), y));
  EXPECT_EQ(address(out[0]), memory);
  EXPECT_EQ(out[0].device(), cpu1);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 6, 12, 20}));  // (x + 1) * x
}

}  // namespace
}  // namespace ndbuf::program
