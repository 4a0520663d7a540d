// Tests of gather: hand-worked lookups and the spec's per-element formula on random indices.
#include "program/ops/indexing/gather.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <numeric>

#include "memory/stream_store.hpp"
#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

bool has(const std::vector<int64_t>& v, int64_t x) { return std::count(v.begin(), v.end(), x) > 0; }

// The spec's formula, one result element at a time.
std::vector<int64_t> naive_gather(const std::vector<int64_t>& operand, const Shape& os,
                                  const std::vector<int64_t>& indices, const Shape& is,
                                  const GatherDimensions& g, const std::vector<int64_t>& slice,
                                  const Shape& rs) {
  std::vector<int64_t> out(checked_numel(rs));
  const int64_t ivd = g.index_vector_dim;
  for (size_t r = 0; r < out.size(); ++r) {
    const auto ri = unflatten(r, rs);
    std::vector<int64_t> batch, offset;
    for (size_t d = 0; d < rs.size(); ++d)
      (has(g.offset_dims, d) ? offset : batch).push_back(ri[d]);
    std::vector<int64_t> oi(os.size(), 0);
    for (size_t j = 0; j < g.start_index_map.size(); ++j) {
      std::vector<int64_t> ii = batch;
      if (ivd < static_cast<int64_t>(is.size())) ii.insert(ii.begin() + ivd, j);
      const int64_t d = g.start_index_map[j];
      oi[d] += std::clamp<int64_t>(indices[flatten(ii, is)], 0, os[d] - slice[d]);
    }
    for (size_t j = 0; j < g.operand_batching_dims.size(); ++j) {
      const int64_t ds = g.start_indices_batching_dims[j];
      oi[g.operand_batching_dims[j]] += batch[ds - (ds < ivd ? 0 : 1)];
    }
    for (size_t d = 0, k = 0; d < os.size(); ++d) {
      if (!has(g.collapsed_slice_dims, d) && !has(g.operand_batching_dims, d)) oi[d] += offset[k++];
    }
    out[r] = operand[flatten(oi, os)];
  }
  return out;
}

TEST(ProgramGather, EmbeddingLookupClampsStarts) {
  std::vector<int64_t> table(15);
  std::iota(table.begin(), table.end(), 0);
  GatherDimensions g{{1}, {0}, {}, {}, {0}, 1};
  const Tensor r = gather(i64({5, 3}, table), i32({4}, {0, 4, -1, 7}), g, {1, 3});
  EXPECT_EQ(r.shape(), (Shape{4, 3}));
  // -1 clamps to row 0 and 7 to row 4.
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{0, 1, 2, 12, 13, 14, 0, 1, 2, 12, 13, 14}));
}

TEST(ProgramGather, SlicesClampSoTheyFitAndIndexVectorDimZero) {
  // operand 3x4 = 0..11; start (1, 3) with a 2x2 slice clamps the column start to 2.
  std::vector<int64_t> x(12);
  std::iota(x.begin(), x.end(), 0);
  GatherDimensions g{{0, 1}, {}, {}, {}, {0, 1}, 0};
  const Tensor r = gather(column_major(i64({3, 4}, x)), i64({2, 1}, {1, 3}), g, {2, 2});
  EXPECT_EQ(r.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{6, 7, 10, 11}));
}

struct Case {
  Shape operand, indices;
  GatherDimensions dims;
  std::vector<int64_t> slice;
};

TEST(ProgramGather, MatchesSpecFormulaOnRandomIndices) {
  const std::vector<Case> cases = {
      {{3, 4, 2}, {2, 3, 2}, {{2, 3}, {0}, {}, {}, {1, 0}, 2}, {1, 2, 2}},
      {{2, 3, 4, 2}, {2, 2, 3, 2}, {{3, 4}, {1}, {0}, {1}, {2, 1}, 3}, {1, 1, 2, 2}},
      {{4, 5}, {2, 3}, {{0, 1}, {}, {}, {}, {0, 1}, 0}, {2, 2}},
      {{6}, {3, 1}, {{1}, {}, {}, {}, {0}, 1}, {3}},
      {{5, 3}, {2, 2}, {{}, {0, 1}, {}, {}, {1, 0}, 1}, {1, 1}},
  };
  std::mt19937 rng(3);
  for (const Case& c : cases) {
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<int64_t> operand(checked_numel(c.operand)), indices(checked_numel(c.indices));
      for (auto& v : operand) v = static_cast<int64_t>(rng() % 1000);
      for (auto& v : indices) v = static_cast<int64_t>(rng() % 9) - 2;
      const Shape rs = gather_shape(c.operand, c.indices, c.dims, c.slice);
      const auto expected =
          naive_gather(operand, c.operand, indices, c.indices, c.dims, c.slice, rs);
      Tensor op = i64(c.operand, operand);
      if (trial % 2) op = column_major(op);
      const Tensor r = gather(op, i64(c.indices, indices), c.dims, c.slice);
      EXPECT_EQ(r.shape(), rs);
      EXPECT_EQ(values<int64_t>(r), expected);
    }
  }
}

// Row gathers (whole slabs along dim 0: embedding lookups) take their own copy paths; each
// layout, batch shape and index position against the spec's formula, sizes large enough for
// the copies to run on threads.
struct RowCase {
  Shape operand, indices;
  int64_t index_vector_dim;
};

TEST(ProgramGather, RowGathersMatchSpecFormulaInEveryLayout) {
  const std::vector<RowCase> cases = {
      {{300, 70}, {4000, 1}, 1},  // JAX's table[idx]
      {{300, 70}, {4000}, 1},     // index vectors implicit
      {{40, 3, 5}, {30, 20}, 2},  // rank-3 slabs, two batch dims
      {{50, 4}, {6, 1, 7}, 1},    // the index vector dim between the batch dims
      {{9}, {12}, 1},             // a vector: slabs of one element
  };
  std::mt19937 rng(11);
  for (const RowCase& c : cases) {
    const size_t slab_rank = c.operand.size() - 1;
    Shape batch = c.indices;
    if (c.index_vector_dim < static_cast<int64_t>(batch.size())) {
      batch.erase(batch.begin() + c.index_vector_dim);
    }
    GatherDimensions g{{}, {0}, {}, {}, {0}, c.index_vector_dim};
    for (size_t j = 0; j < slab_rank; ++j) g.offset_dims.push_back(batch.size() + j);
    std::vector<int64_t> slice = c.operand;
    slice[0] = 1;
    std::vector<int64_t> operand(checked_numel(c.operand)), indices(checked_numel(c.indices));
    for (auto& v : operand) v = static_cast<int64_t>(rng() % 100000);
    for (auto& v : indices) v = static_cast<int64_t>(rng() % (c.operand[0] + 6)) - 3;
    const Shape rs = gather_shape(c.operand, c.indices, g, slice);
    const auto expected = naive_gather(operand, c.operand, indices, c.indices, g, slice, rs);
    const Tensor row_major = i64(c.operand, operand);
    for (const Tensor& op : {row_major, column_major(row_major)}) {
      const Tensor r = gather(
          op, i32(c.indices, std::vector<int32_t>(indices.begin(), indices.end())), g, slice);
      EXPECT_EQ(r.shape(), rs);
      EXPECT_EQ(values<int64_t>(r), expected);
    }
  }
}

TEST(ProgramGather, RowGatherOfAColumnMajorTableIsColumnMajor) {
  // A 3x2 table stored column-major; rows 2, 0, 2 (5 clamps to 2).
  const Tensor table = column_major(f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  const Tensor r = gather(table, i32({3, 1}, {2, 0, 5}), {{1}, {0}, {}, {}, {0}, 1}, {1, 2});
  EXPECT_TRUE(r.is_contiguous(Order::kColumnMajor));
  EXPECT_EQ(values<float>(r), (std::vector<float>{5, 6, 1, 2, 5, 6}));
}

TEST(ProgramGather, RowGatherOfEveryOtherRowReadsThroughTheRowStride) {
  // Rows 0, 2, 4 of a 6x2 row-major table, as a view with row stride 4.
  const Tensor full = f32({6, 2}, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41, 50, 51});
  const Tensor view(full.storage(), DType::kF32, {3, 2}, {4, 1}, 0);
  const Tensor r = gather(view, i32({2}, {2, 1}), {{1}, {0}, {}, {}, {0}, 1}, {1, 2});
  EXPECT_EQ(values<float>(r), (std::vector<float>{40, 41, 20, 21}));
}

TEST(ProgramGather, RowGathersOfTwoAndSixteenByteElements) {
  using C = std::complex<double>;
  const Tensor x =
      column_major(tensor_of<C>(DType::kC128, {2, 2}, {C(1, 2), C(3, 4), C(5, 6), C(7, 8)}));
  EXPECT_EQ(values<C>(gather(x, i32({2}, {1, 0}), {{1}, {0}, {}, {}, {0}, 1}, {1, 2})),
            (std::vector<C>{C(5, 6), C(7, 8), C(1, 2), C(3, 4)}));
  const Tensor h = f16({2, 3}, {0.5, -2, 3, 4, 5, 6});
  EXPECT_EQ(half_values(gather(h, i32({1}, {1}), {{1}, {0}, {}, {}, {0}, 1}, {1, 3})),
            (std::vector<double>{4, 5, 6}));
}

// A row gather whose result is 4 MiB or more writes it around the caches, prefetching rows
// ahead (gather_rows.cpp): the same rows, odd row lengths (unaligned row starts) and a row read
// twice included. 16 MiB results, so other kernels' threshold is passed too.
TEST(ProgramGather, LargeRowGathersCopyEveryRow) {
  for (const int64_t width : {int64_t{1024}, int64_t{1023}}) {
    const int64_t table_rows = 300, count = 4200;  // 4200 x 1023 f32 is 16.4 MiB
    std::vector<float> table(table_rows * width);
    for (size_t k = 0; k < table.size(); ++k) table[k] = static_cast<float>(k % 100003) * 0.5f;
    std::vector<int32_t> rows(count);
    for (int64_t p = 0; p < count; ++p) rows[p] = static_cast<int32_t>((p * 37 + 11) % table_rows);
    rows[5] = rows[6];
    const Tensor r = gather(f32({table_rows, width}, table), i32({count}, rows),
                            {{1}, {0}, {}, {}, {0}, 1}, {1, width});
    ASSERT_GE(r.nbytes(), kStreamedResultBytes);
    const std::vector<float> got = values<float>(r);
    for (int64_t p = 0; p < count; ++p) {
      for (int64_t c = 0; c < width; c += 31) {
        ASSERT_EQ(got[p * width + c], table[rows[p] * width + c]) << width << " " << p << "," << c;
      }
      ASSERT_EQ(got[p * width + width - 1], table[rows[p] * width + width - 1]) << p;
    }
  }
}

TEST(ProgramGather, AnyElementTypeAndIndexType) {
  using C = std::complex<double>;
  GatherDimensions g{{}, {0}, {}, {}, {0}, 1};
  const Tensor x = tensor_of<C>(DType::kC128, {3}, {C(1, 2), C(3, 4), C(5, 6)});
  const Tensor idx = tensor_of<uint64_t>(DType::kU64, {2}, {2, ~uint64_t{0}});
  // The huge unsigned index saturates and clamps to the last element.
  EXPECT_EQ(values<C>(gather(x, idx, g, {1})), (std::vector<C>{C(5, 6), C(5, 6)}));
  const Tensor h = f16({2}, {0.5, -2});
  EXPECT_EQ(half_values(gather(h, tensor_of<int8_t>(DType::kI8, {1}, {1}), g, {1})),
            (std::vector<double>{-2}));
}

TEST(ProgramGather, EmptyResultsAndZeroDimIndices) {
  GatherDimensions g{{0}, {}, {}, {}, {0}, 0};
  const Tensor r = gather(f32({4}, {1, 2, 3, 4}), i32({}, {2}), g, {0});
  EXPECT_EQ(r.shape(), (Shape{0}));
  GatherDimensions scalar{{}, {0}, {}, {}, {0}, 0};
  EXPECT_EQ(values<float>(gather(f32({4}, {1, 2, 3, 4}), i32({}, {2}), scalar, {1})),
            (std::vector<float>{3}));
}

TEST(ProgramGather, RejectsInconsistentAttributes) {
  const Tensor x = f32({4}, {1, 2, 3, 4});
  const Tensor idx = i32({2}, {0, 1});
  EXPECT_THROW(gather(x, idx, {{}, {0}, {}, {}, {0}, 1}, {5}), Error);     // slice too big
  EXPECT_THROW(gather(x, idx, {{}, {0}, {}, {}, {0}, 1}, {1, 1}), Error);  // slice rank
  EXPECT_THROW(gather(x, idx, {{}, {0}, {}, {}, {0}, 3}, {1}), Error);     // index_vector_dim
  EXPECT_THROW(gather(x, idx, {{}, {}, {}, {}, {0}, 1}, {1}), Error);      // offset dims
  EXPECT_THROW(gather(x, idx, {{}, {0}, {}, {}, {0, 0}, 1}, {1}), Error);  // start_index_map
  EXPECT_THROW(gather(x, f32({2}, {0, 1}), {{}, {0}, {}, {}, {0}, 1}, {1}), Error);
  EXPECT_THROW(gather(f32({0}, {}), idx, {{}, {0}, {}, {}, {0}, 1}, {0}), Error);
}

}  // namespace
}  // namespace ndbuf::program
