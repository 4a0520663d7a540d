// Tests of the reduce kernel: hand-worked values, a naive reference on random shapes, dtypes.
#include "program/ops/reduction/reduce.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

TEST(ProgramReduce, SumsRowsColumnsAndAll) {
  const Tensor x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor zero = scalar_i32(0);
  EXPECT_EQ(values<int32_t>(reduce({x}, {zero}, {1}, nullptr, FastBody::kAdd)[0]),
            (std::vector<int32_t>{6, 15}));
  EXPECT_EQ(values<int32_t>(reduce({x}, {zero}, {0}, nullptr, FastBody::kAdd)[0]),
            (std::vector<int32_t>{5, 7, 9}));
  const Tensor all = reduce({x}, {scalar_i32(100)}, {1, 0}, nullptr, FastBody::kAdd)[0];
  EXPECT_EQ(all.rank(), 0u);
  EXPECT_EQ(values<int32_t>(all), (std::vector<int32_t>{121}));
  EXPECT_EQ(values<int32_t>(reduce({x}, {zero}, {}, nullptr, FastBody::kAdd)[0]),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(ProgramReduce, EveryFastBodyOnIntegers) {
  const Tensor x = i32({4}, {6, -3, 12, 5});
  auto one = [&](FastBody body, int32_t init) {
    return values<int32_t>(reduce({x}, {scalar_i32(init)}, {0}, nullptr, body)[0])[0];
  };
  EXPECT_EQ(one(FastBody::kAdd, 0), 20);
  EXPECT_EQ(one(FastBody::kMultiply, 1), -1080);
  EXPECT_EQ(one(FastBody::kMaximum, std::numeric_limits<int32_t>::min()), 12);
  EXPECT_EQ(one(FastBody::kMinimum, std::numeric_limits<int32_t>::max()), -3);
  EXPECT_EQ(one(FastBody::kAnd, -1), 6 & -3 & 12 & 5);
  EXPECT_EQ(one(FastBody::kOr, 0), 6 | -3 | 12 | 5);
}

TEST(ProgramReduce, IntegersWrap) {
  const Tensor x = tensor_of<int8_t>(DType::kI8, {3}, {100, 100, 100});
  const Tensor zero = tensor_of<int8_t>(DType::kI8, {}, {0});
  // 300 mod 256 = 44.
  EXPECT_EQ(values<int8_t>(reduce({x}, {zero}, {0}, nullptr, FastBody::kAdd)[0])[0], 44);
  const Tensor u = tensor_of<uint16_t>(DType::kU16, {2}, {65535, 65535});
  const Tensor one = tensor_of<uint16_t>(DType::kU16, {}, {1});
  // 65535^2 mod 65536 = 1.
  EXPECT_EQ(values<uint16_t>(reduce({u}, {one}, {0}, nullptr, FastBody::kMultiply)[0])[0], 1);
}

TEST(ProgramReduce, PredBodiesAreLogical) {
  const Tensor x = pred({2, 2}, {1, 1, 0, 1});
  auto rows = [&](FastBody body, uint8_t init) {
    return values<uint8_t>(reduce({x}, {pred({}, {init})}, {1}, nullptr, body)[0]);
  };
  EXPECT_EQ(rows(FastBody::kAdd, 0), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(rows(FastBody::kAnd, 1), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(rows(FastBody::kMultiply, 1), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(rows(FastBody::kOr, 0), (std::vector<uint8_t>{1, 1}));
  EXPECT_EQ(rows(FastBody::kMinimum, 1), (std::vector<uint8_t>{1, 0}));
}

TEST(ProgramReduce, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = f32({2, 3}, {1, nan, 3, 4, 5, -6});
  const float inf = std::numeric_limits<float>::infinity();
  const auto mx =
      values<float>(reduce({x}, {scalar_f32(-inf)}, {1}, nullptr, FastBody::kMaximum)[0]);
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 5);
  const auto mn =
      values<float>(reduce({x}, {scalar_f32(inf)}, {1}, nullptr, FastBody::kMinimum)[0]);
  EXPECT_TRUE(std::isnan(mn[0]));
  EXPECT_EQ(mn[1], -6);
}

TEST(ProgramReduce, HalfTypesAccumulateInFloatAndRoundOnce) {
  // In f16, 2048 + 1 rounds back to 2048 each time; in f32 the sum is 2050, an f16 value.
  const Tensor h = f16({3}, {2048, 1, 1});
  EXPECT_EQ(half_values(reduce({h}, {f16({}, {0})}, {0}, nullptr, FastBody::kAdd)[0])[0], 2050);
  // bf16 has 8 significand bits: 256 + 1 + 1 = 258 is representable.
  const Tensor b = bf16({3}, {256, 1, 1});
  EXPECT_EQ(half_values(reduce({b}, {bf16({}, {0})}, {0}, nullptr, FastBody::kAdd)[0])[0], 258);
}

TEST(ProgramReduce, ComplexSumAndLexicographicMax) {
  using C = std::complex<double>;
  const Tensor x = tensor_of<C>(DType::kC128, {3}, {C(1, 2), C(3, -1), C(3, 4)});
  const Tensor zero = tensor_of<C>(DType::kC128, {}, {C(0, 0)});
  EXPECT_EQ(values<C>(reduce({x}, {zero}, {0}, nullptr, FastBody::kAdd)[0])[0], C(7, 5));
  const Tensor low = tensor_of<C>(DType::kC128, {}, {C(-100, 0)});
  EXPECT_EQ(values<C>(reduce({x}, {low}, {0}, nullptr, FastBody::kMaximum)[0])[0], C(3, 4));
}

TEST(ProgramReduce, ZeroDimAndEmptyInputs) {
  EXPECT_EQ(
      values<int32_t>(reduce({i32({}, {5})}, {scalar_i32(10)}, {}, nullptr, FastBody::kAdd)[0]),
      (std::vector<int32_t>{15}));
  const Tensor empty = i32({0, 3}, {});
  EXPECT_EQ(values<int32_t>(reduce({empty}, {scalar_i32(7)}, {0}, nullptr, FastBody::kAdd)[0]),
            (std::vector<int32_t>{7, 7, 7}));
  EXPECT_EQ(reduce({empty}, {scalar_i32(7)}, {1}, nullptr, FastBody::kAdd)[0].shape(), (Shape{0}));
}

// Reference: for each result index, every input index whose kept coordinates match.
std::vector<double> naive_sum(const std::vector<double>& x, const Shape& shape,
                              const std::vector<int64_t>& dims, Shape& result_shape) {
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : dims) reduced[d] = true;
  result_shape.clear();
  for (size_t k = 0; k < shape.size(); ++k) {
    if (!reduced[k]) result_shape.push_back(shape[k]);
  }
  std::vector<double> out(static_cast<size_t>(checked_numel(result_shape)), 0.0);
  for (size_t o = 0; o < out.size(); ++o) {
    const auto oi = unflatten(static_cast<int64_t>(o), result_shape);
    for (size_t e = 0; e < x.size(); ++e) {
      const auto ei = unflatten(static_cast<int64_t>(e), shape);
      bool match = true;
      for (size_t k = 0, j = 0; k < shape.size(); ++k) {
        if (!reduced[k]) match = match && ei[k] == oi[j++];
      }
      if (match) out[o] += x[e];
    }
  }
  return out;
}

TEST(ProgramReduce, MatchesNaiveReferenceOnRandomShapesAndStrides) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t rank = 1 + rng() % 4;
    const Shape shape = random_shape(rng, rank, 5);
    std::vector<int64_t> dims;
    for (size_t k = 0; k < rank; ++k) {
      if (rng() % 2) dims.push_back(static_cast<int64_t>(k));
    }
    std::shuffle(dims.begin(), dims.end(), rng);
    std::vector<double> x(static_cast<size_t>(checked_numel(shape)));
    for (auto& v : x) v = static_cast<double>(static_cast<int>(rng() % 19) - 9);
    Shape expected_shape;
    const auto expected = naive_sum(x, shape, dims, expected_shape);
    Tensor input = f64(shape, x);
    if (trial % 2) input = column_major(input);
    const Tensor fast = reduce({input}, {f64({}, {0})}, dims, nullptr, FastBody::kAdd)[0];
    EXPECT_EQ(fast.shape(), expected_shape);
    EXPECT_EQ(values<double>(fast), expected);
    const auto add = binary_region<double>(DType::kF64, [](double a, double b) { return a + b; });
    EXPECT_EQ(values<double>(reduce({input}, {f64({}, {0})}, dims, add)[0]), expected);
  }
}

// argmax as a variadic reduce: the larger value wins, the lower index on ties.
std::vector<Tensor> argmax_body(const std::vector<Tensor>& args) {
  const float av = values<float>(args[0])[0], bv = values<float>(args[2])[0];
  const int32_t ai = values<int32_t>(args[1])[0], bi = values<int32_t>(args[3])[0];
  const bool take_a = av > bv || (av == bv && ai < bi);
  return {scalar_f32(take_a ? av : bv), scalar_i32(take_a ? ai : bi)};
}

TEST(ProgramReduce, VariadicArgmaxThroughTheRegion) {
  const Tensor v = f32({2, 4}, {3, 9, 1, 9, -1, -5, -2, -1});
  const Tensor idx = i32({2, 4}, {0, 1, 2, 3, 0, 1, 2, 3});
  const float low = -std::numeric_limits<float>::infinity();
  const auto r =
      reduce({v, column_major(idx)}, {scalar_f32(low), scalar_i32(-1)}, {1}, argmax_body);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(values<float>(r[0]), (std::vector<float>{9, -1}));
  EXPECT_EQ(values<int32_t>(r[1]), (std::vector<int32_t>{1, 0}));
}

TEST(ProgramReduce, RejectsBadArguments) {
  const Tensor x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(reduce({x}, {scalar_i32(0)}, {1, 1}, nullptr, FastBody::kAdd), Error);
  EXPECT_THROW(reduce({x}, {scalar_i32(0)}, {2}, nullptr, FastBody::kAdd), Error);
  EXPECT_THROW(reduce({x}, {}, {0}, nullptr, FastBody::kAdd), Error);
  EXPECT_THROW(reduce({x}, {i32({1}, {0})}, {0}, nullptr, FastBody::kAdd), Error);
  EXPECT_THROW(reduce({f32({1}, {1})}, {scalar_f32(0)}, {0}, nullptr, FastBody::kAnd), Error);
  EXPECT_THROW(reduce({x}, {scalar_i32(0)}, {0}, nullptr), Error);
  const RegionFn wrong = [](const std::vector<Tensor>&) {
    return std::vector<Tensor>{scalar_f32(0)};
  };
  try {
    reduce({x}, {scalar_i32(0)}, {0}, wrong);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "reduce: region result 1 must be a 0-d host i32 tensor.");
  }
}

}  // namespace
}  // namespace ndbuf::program
