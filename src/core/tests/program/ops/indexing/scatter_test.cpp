// Tests of scatter: hand-worked updates, skipped windows, variadic bodies, a spec-formula
// reference over random indices.
#include "program/ops/indexing/scatter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

bool has(const std::vector<int64_t>& v, int64_t x) { return std::count(v.begin(), v.end(), x) > 0; }

const RegionFn kAddI64 =
    binary_region<int64_t>(DType::kI64, [](int64_t a, int64_t b) { return a + b; });

TEST(ProgramScatter, AddsRowsAndSkipsWindowsOutside) {
  // input 3x2 zeros; rows 2, 0, 5 (outside: skipped) and 0 again receive [1 2], [3 4], ...
  ScatterDimensions s{{1}, {0}, {}, {}, {0}, 1};
  const Tensor input = i64({3, 2}, {0, 0, 0, 0, 0, 0});
  const Tensor idx = i32({4}, {2, 0, 5, 0});
  const Tensor up = i64({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const std::vector<int64_t> expected = {10, 12, 0, 0, 1, 2};
  EXPECT_EQ(values<int64_t>(scatter({input}, idx, {up}, s, nullptr, FastBody::kAdd)[0]), expected);
  EXPECT_EQ(values<int64_t>(scatter({input}, idx, {up}, s, kAddI64)[0]), expected);
  // The input is never written.
  EXPECT_EQ(values<int64_t>(input), std::vector<int64_t>(6, 0));
}

TEST(ProgramScatter, PartlyOutsideWindowsAreSkippedWhole) {
  // A 2-wide window starting at column 3 of a 4-wide row does not fit: nothing changes.
  ScatterDimensions s{{1}, {}, {}, {}, {0}, 1};
  const Tensor input = i64({4}, {1, 1, 1, 1});
  const Tensor r = scatter({input}, i64({2, 1}, {3, 1}), {i64({2, 2}, {5, 5, 7, 7})}, s, nullptr,
                           FastBody::kAdd)[0];
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{1, 8, 8, 1}));
}

TEST(ProgramScatter, ReplaceAndVariadicBody) {
  ScatterDimensions s{{}, {0}, {}, {}, {0}, 1};
  const Tensor idx = i32({2}, {1, 3});
  const Tensor r = scatter({f32({4}, {0, 0, 0, 0})}, idx, {f32({2}, {2.5, -1})}, s, nullptr,
                           FastBody::kReplace)[0];
  EXPECT_EQ(values<float>(r), (std::vector<float>{0, 2.5, 0, -1}));
  // Two inputs updated together: keep the pair with the larger first value.
  const RegionFn keep_max = [](const std::vector<Tensor>& a) {
    const bool take = values<float>(a[2])[0] > values<float>(a[0])[0];
    return std::vector<Tensor>{take ? a[2] : a[0], take ? a[3] : a[1]};
  };
  const auto rs = scatter({f32({4}, {1, 1, 1, 1}), i32({4}, {0, 0, 0, 0})}, idx,
                          {f32({2}, {0.5, 9}), i32({2}, {7, 8})}, s, keep_max);
  EXPECT_EQ(values<float>(rs[0]), (std::vector<float>{1, 1, 1, 9}));
  EXPECT_EQ(values<int32_t>(rs[1]), (std::vector<int32_t>{0, 0, 0, 8}));
}

TEST(ProgramScatter, PredAndHalfFastBodies) {
  ScatterDimensions s{{}, {0}, {}, {}, {0}, 1};
  const Tensor idx = i32({3}, {0, 0, 2});
  EXPECT_EQ(values<uint8_t>(scatter({pred({3}, {0, 0, 0})}, idx, {pred({3}, {1, 1, 1})}, s, nullptr,
                                    FastBody::kAdd)[0]),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(half_values(scatter({f16({3}, {1, 1, 1})}, idx, {f16({3}, {0.5, 0.25, 3})}, s, nullptr,
                                FastBody::kMultiply)[0]),
            (std::vector<double>{0.125, 1, 3}));
}

struct Case {
  Shape input, indices, updates;
  ScatterDimensions dims;
};

// The spec's formula per update element, skipping elements whose window does not fit.
std::vector<int64_t> naive_scatter(std::vector<int64_t> r, const Case& c,
                                   const std::vector<int64_t>& idx,
                                   const std::vector<int64_t>& up) {
  const ScatterDimensions& s = c.dims;
  const int64_t ivd = s.index_vector_dim;
  for (size_t u = 0; u < up.size(); ++u) {
    const auto ui = unflatten(u, c.updates);
    std::vector<int64_t> scat, win;
    for (size_t d = 0; d < c.updates.size(); ++d)
      (has(s.update_window_dims, d) ? win : scat).push_back(ui[d]);
    std::vector<int64_t> start(c.input.size(), 0), full(c.input.size(), 0),
        extent(c.input.size(), 1);
    for (size_t j = 0; j < s.scatter_dims_to_operand_dims.size(); ++j) {
      std::vector<int64_t> ii = scat;
      if (ivd < static_cast<int64_t>(c.indices.size())) ii.insert(ii.begin() + ivd, j);
      start[s.scatter_dims_to_operand_dims[j]] = idx[flatten(ii, c.indices)];
    }
    for (size_t j = 0; j < s.input_batching_dims.size(); ++j) {
      const int64_t ds = s.scatter_indices_batching_dims[j];
      start[s.input_batching_dims[j]] = scat[ds - (ds < ivd ? 0 : 1)];
    }
    for (size_t d = 0, k = 0; d < c.input.size(); ++d) {
      if (!has(s.inserted_window_dims, d) && !has(s.input_batching_dims, d)) {
        full[d] = win[k];
        extent[d] = c.updates[s.update_window_dims[k++]];
      }
    }
    bool fits = true;
    std::vector<int64_t> ri(c.input.size());
    for (size_t d = 0; d < c.input.size(); ++d) {
      fits = fits && start[d] >= 0 && start[d] + extent[d] <= c.input[d];
      ri[d] = start[d] + full[d];
    }
    if (fits) r[flatten(ri, c.input)] += up[u];
  }
  return r;
}

TEST(ProgramScatter, MatchesSpecFormulaOnRandomIndices) {
  const std::vector<Case> cases = {
      {{3, 4, 2}, {2, 3, 2}, {2, 3, 2, 2}, {{2, 3}, {0}, {}, {}, {1, 0}, 2}},
      {{2, 3, 4, 2}, {2, 2, 3, 2}, {2, 2, 3, 2, 2}, {{3, 4}, {1}, {0}, {1}, {2, 1}, 3}},
      {{5, 4}, {3}, {2, 3}, {{0}, {1}, {}, {}, {1}, 1}},
      {{6}, {1, 4}, {4, 2}, {{1}, {}, {}, {}, {0}, 0}},
  };
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<int64_t> in(checked_numel(c.input)), idx(checked_numel(c.indices)),
          up(checked_numel(c.updates));
      for (auto& v : in) v = static_cast<int64_t>(rng() % 100);
      for (auto& v : idx) v = static_cast<int64_t>(rng() % 7) - 1;
      for (auto& v : up) v = static_cast<int64_t>(rng() % 100);
      const auto expected = naive_scatter(in, c, idx, up);
      Tensor input = i64(c.input, in), updates = i64(c.updates, up);
      if (trial % 2) {
        input = column_major(input);
        updates = column_major(updates);
      }
      const Tensor indices = i64(c.indices, idx);
      EXPECT_EQ(
          values<int64_t>(scatter({input}, indices, {updates}, c.dims, nullptr, FastBody::kAdd)[0]),
          expected);
      EXPECT_EQ(values<int64_t>(scatter({input}, indices, {updates}, c.dims, kAddI64)[0]),
                expected);
    }
  }
}

TEST(ProgramScatter, EmptyUpdatesAndBadAttributes) {
  ScatterDimensions s{{}, {0}, {}, {}, {0}, 1};
  const Tensor input = i64({3}, {1, 2, 3});
  EXPECT_EQ(values<int64_t>(scatter({input}, i32({0}, {}), {i64({0}, {})}, s, kAddI64)[0]),
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_THROW(scatter({input}, i32({2}, {0, 1}), {i64({3}, {1, 1, 1})}, s, kAddI64), Error);
  EXPECT_THROW(scatter({input}, i32({1}, {0}), {i64({1}, {1})}, {{}, {0}, {}, {}, {1}, 1}, kAddI64),
               Error);
  EXPECT_THROW(scatter({input}, i32({1}, {0}), {i64({1}, {1})}, s, nullptr), Error);
  EXPECT_THROW(scatter({input}, f32({1}, {0}), {i64({1}, {1})}, s, kAddI64), Error);
  EXPECT_THROW(scatter({f32({1}, {0})}, i32({1}, {0}), {f32({1}, {1})}, s, nullptr, FastBody::kOr),
               Error);
}

}  // namespace
}  // namespace ndbuf::program
