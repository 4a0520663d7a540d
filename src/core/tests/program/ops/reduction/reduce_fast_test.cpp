// Tests of reduce's associative fast bodies against a fold in double (int64 for integers) over
// inner, outer, middle and mixed axes, odd and empty sizes, row- and column-major inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "program/ops/reduction/reduce.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

Tensor tensor_from(DType dtype, const Shape& shape, const std::vector<double>& v) {
  switch (dtype) {
    case DType::kF64:
      return f64(shape, v);
    case DType::kF32:
      return f32(shape, std::vector<float>(v.begin(), v.end()));
    case DType::kI32:
      return i32(shape, std::vector<int32_t>(v.begin(), v.end()));
    case DType::kF16:
      return f16(shape, v);
    default:
      return bf16(shape, v);
  }
}

std::vector<double> doubles_of(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kF64:
      return values<double>(t);
    case DType::kF32: {
      const auto v = values<float>(t);
      return {v.begin(), v.end()};
    }
    case DType::kI32: {
      const auto v = values<int32_t>(t);
      return {v.begin(), v.end()};
    }
    default:
      return half_values(t);
  }
}

// One fold step in double; integers (small values, exact in double) wrap through uint64 and are
// truncated to i32 at the end, which equals wrapping at every step.
double combine_reference(FastBody body, double a, double b, bool integer) {
  switch (body) {
    case FastBody::kAdd:
      return integer ? static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(
                           static_cast<int64_t>(a) + static_cast<int64_t>(b))))
                     : a + b;
    case FastBody::kMultiply:
      return integer ? static_cast<double>(static_cast<int32_t>(
                           static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(a)) *
                                                 static_cast<uint64_t>(static_cast<int64_t>(b)))))
                     : a * b;
    case FastBody::kMaximum:
      return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
    case FastBody::kMinimum:
      return std::isnan(a) || std::isnan(b) ? std::nan("") : std::min(a, b);
    case FastBody::kAnd:
      return static_cast<double>(static_cast<int32_t>(a) & static_cast<int32_t>(b));
    default:
      return static_cast<double>(static_cast<int32_t>(a) | static_cast<int32_t>(b));
  }
}

// The reference fold; `magnitude` gets the sum of |x| per result element (for tolerances).
std::vector<double> reference(const std::vector<double>& x, const Shape& shape,
                              const std::vector<int64_t>& dims, FastBody body, double init,
                              bool integer, std::vector<double>& magnitude) {
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : dims) reduced[d] = true;
  Shape kept;
  for (size_t k = 0; k < shape.size(); ++k)
    if (!reduced[k]) kept.push_back(shape[k]);
  std::vector<double> out(static_cast<size_t>(checked_numel(kept)), init);
  magnitude.assign(out.size(), std::abs(init));
  // Result stride of each input dim (0 for a reduced one), walked with a row-major counter.
  std::vector<int64_t> to_out(shape.size(), 0), index(shape.size(), 0);
  for (size_t k = shape.size(), stride = 1; k-- > 0;) {
    if (!reduced[k]) {
      to_out[k] = static_cast<int64_t>(stride);
      stride *= static_cast<size_t>(shape[k]);
    }
  }
  int64_t o = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    out[o] = combine_reference(body, out[o], x[i], integer);
    magnitude[o] += std::abs(x[i]);
    for (size_t k = shape.size(); k-- > 0;) {
      o += to_out[k];
      if (++index[k] < shape[k]) break;
      o -= to_out[k] * shape[k];
      index[k] = 0;
    }
  }
  return out;
}

double init_for(FastBody body, bool integer) {
  switch (body) {
    case FastBody::kAdd:
      return 0.5 * !integer;
    case FastBody::kMultiply:
      return integer ? 3 : 2;
    case FastBody::kMaximum:
      return -1000;
    case FastBody::kMinimum:
      return 1000;
    case FastBody::kAnd:
      return -1;
    default:
      return 0;
  }
}

// Values whose folds are exact in f32 where the type allows (small integers, powers of two for
// products), so f16 / bf16 results equal the exact result rounded once.
std::vector<double> values_for(std::mt19937& rng, int64_t n, DType dtype, FastBody body) {
  std::vector<double> v(static_cast<size_t>(n));
  const double powers[] = {1, -1, 2, 0.5};
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : v) {
    if (body == FastBody::kMultiply) {
      // Mostly +-1, rarely 2 or 0.5, so that no partial product leaves the f32 range.
      x = dtype == DType::kI32 ? static_cast<double>(rng() % 7) - 3
                               : powers[rng() % 1000 == 0 ? 2 + rng() % 2 : rng() % 2];
    } else if (dtype == DType::kF32 || dtype == DType::kF64) {
      x = u(rng);
    } else {
      x = static_cast<double>(rng() % 17) - 8;
    }
  }
  return v;
}

void check_reduce(DType dtype, const Shape& shape, const std::vector<int64_t>& dims, FastBody body,
                  bool column, std::mt19937& rng, int64_t nan_at = -1) {
  const bool integer = dtype == DType::kI32;
  auto x = values_for(rng, checked_numel(shape), dtype, body);
  if (nan_at >= 0 && nan_at < static_cast<int64_t>(x.size())) x[nan_at] = std::nan("");
  const double init = init_for(body, integer);
  std::vector<double> magnitude;
  const auto expected = reference(x, shape, dims, body, init, integer, magnitude);
  Tensor input = tensor_from(dtype, shape, x);
  if (column) input = column_major(input);
  const Tensor r = reduce({input}, {tensor_from(dtype, {}, {init})}, dims, nullptr, body)[0];
  const auto got = doubles_of(r);
  ASSERT_EQ(got.size(), expected.size());
  const auto rounded =
      doubles_of(tensor_from(dtype, {static_cast<int64_t>(expected.size())}, expected));
  const double eps = dtype == DType::kF64 ? std::numeric_limits<double>::epsilon()
                                          : std::numeric_limits<float>::epsilon();
  const bool inexact = body == FastBody::kAdd && (dtype == DType::kF32 || dtype == DType::kF64);
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else if (inexact) {
      EXPECT_NEAR(got[i], expected[i],
                  2 * eps * magnitude[i] * std::log2(2 + magnitude[i] + x.size()))
          << i;
    } else {
      EXPECT_EQ(got[i], rounded[i]) << i;
    }
  }
}

const FastBody kFloatBodies[] = {FastBody::kAdd, FastBody::kMultiply, FastBody::kMaximum,
                                 FastBody::kMinimum};
const FastBody kIntegerBodies[] = {FastBody::kAdd,     FastBody::kMultiply, FastBody::kMaximum,
                                   FastBody::kMinimum, FastBody::kAnd,      FastBody::kOr};

struct Case {
  Shape shape;
  std::vector<int64_t> dims;
};

void check_cases(const std::vector<Case>& cases) {
  std::mt19937 rng(23);
  for (const Case& c : cases) {
    for (DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32}) {
      for (FastBody body :
           dtype == DType::kI32
               ? std::vector<FastBody>(std::begin(kIntegerBodies), std::end(kIntegerBodies))
               : std::vector<FastBody>(std::begin(kFloatBodies), std::end(kFloatBodies))) {
        for (bool column : {false, true}) {
          SCOPED_TRACE(shape_to_tuple(c.shape) + " dtype " + std::string(dtype_name(dtype)) +
                       " body " + std::to_string(static_cast<int>(body)) + " column " +
                       std::to_string(column));
          check_reduce(dtype, c.shape, c.dims, body, column, rng);
        }
      }
    }
  }
}

TEST(ProgramReduceFast, InnerOuterMiddleAndAllAxes) {
  check_cases({{{7, 13}, {1}},
               {{7, 13}, {0}},
               {{7, 13}, {0, 1}},
               {{7, 13}, {}},
               {{3, 5, 7}, {1}},
               {{3, 5, 7}, {0, 2}},
               {{3, 1, 5, 7}, {2, 0}},
               {{2, 3, 4, 5}, {1, 3}},
               {{2, 3, 4, 5}, {0, 2, 3}},
               {{1, 1}, {0}},
               {{41}, {0}}});
}

TEST(ProgramReduceFast, LongRowsAndColumnsSplitAcrossCores) {
  check_cases({{{3, 20011}, {1}},
               {{3, 20011}, {0}},
               {{20011, 3}, {0}},
               {{20011, 3}, {1}},
               {{70001}, {0}},
               {{2, 4099, 5}, {1}},
               {{300, 2500}, {0}}});
}

TEST(ProgramReduceFast, EmptyDims) {
  check_cases({{{5, 0, 3}, {1}}, {{5, 0, 3}, {0}}, {{0, 4}, {1}}, {{0, 4}, {0, 1}}, {{0}, {0}}});
}

TEST(ProgramReduceFast, MaxAndMinPropagateNaN) {
  std::mt19937 rng(29);
  for (DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
    for (FastBody body : {FastBody::kMaximum, FastBody::kMinimum}) {
      for (bool column : {false, true}) {
        check_reduce(dtype, {9, 1031}, {1}, body, column, rng, 5 * 1031 + 700);
        check_reduce(dtype, {1031, 9}, {0}, body, column, rng, 600 * 9 + 4);
        check_reduce(dtype, {50001}, {0}, body, column, rng, 45000);
      }
    }
  }
}

}  // namespace
}  // namespace ndbuf::program
