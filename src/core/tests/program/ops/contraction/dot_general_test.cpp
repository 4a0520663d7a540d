// Tests of dot_general and dot: hand-worked products and a naive reference over random dim orders.
#include "program/ops/contraction/dot_general.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <numeric>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

TEST(ProgramDotGeneral, MatrixProductByHand) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154].
  const Tensor c = dot(a, b, DType::kF32);
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{58, 64, 139, 154}));
  // The same with the rhs given transposed and contracted on its dim 1.
  const Tensor bt = f32({2, 3}, {7, 9, 11, 8, 10, 12});
  const Tensor c2 = dot_general(a, bt, {{}, {}, {1}, {1}}, DType::kF32);
  EXPECT_EQ(values<float>(c2), (std::vector<float>{58, 64, 139, 154}));
  // Strided (column-major) operands give the same values.
  EXPECT_EQ(values<float>(dot(column_major(a), column_major(b), DType::kF32)),
            (std::vector<float>{58, 64, 139, 154}));
}

TEST(ProgramDotGeneral, VectorsAndMatrixVector) {
  const Tensor v = i64({3}, {1, 2, 3});
  const Tensor w = i64({3}, {4, -5, 6});
  const Tensor s = dot(v, w, DType::kI64);
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(values<int64_t>(s)[0], 12);
  const Tensor m = i64({2, 3}, {1, 0, 1, 0, 1, 0});
  EXPECT_EQ(values<int64_t>(dot(m, w, DType::kI64)), (std::vector<int64_t>{10, -5}));
  EXPECT_THROW(dot(i64({}, {1}), w, DType::kI64), Error);
}

TEST(ProgramDotGeneral, BatchedWithBatchDimsInAnyPosition) {
  // lhs [k=2, b=2, m=1], rhs [n=1, b=2, k=2]: batch 0: [1 3].[5 6] = 23; batch 1: [2 4].[7 8] = 46.
  const Tensor lhs = i32({2, 2, 1}, {1, 2, 3, 4});
  const Tensor rhs = i32({1, 2, 2}, {5, 6, 7, 8});
  const Tensor r = dot_general(lhs, rhs, {{1}, {1}, {0}, {2}}, DType::kI32);
  EXPECT_EQ(r.shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(values<int32_t>(r), (std::vector<int32_t>{23, 46}));
}

TEST(ProgramDotGeneral, OuterProductWithoutContraction) {
  const Tensor a = i64({2}, {1, 2});
  const Tensor b = i64({3}, {3, 4, 5});
  const Tensor r = dot_general(a, b, {}, DType::kI64);
  EXPECT_EQ(r.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{3, 4, 5, 6, 8, 10}));
}

TEST(ProgramDotGeneral, IntegersWrapAndResultDtypeConverts) {
  const Tensor a = tensor_of<int8_t>(DType::kI8, {2}, {100, 100});
  const Tensor b = tensor_of<int8_t>(DType::kI8, {2}, {2, 1});
  // 300 wraps to 44 in i8, but is exact in an i32 result.
  EXPECT_EQ(values<int8_t>(dot(a, b, DType::kI8))[0], 44);
  EXPECT_EQ(values<int32_t>(dot(a, b, DType::kI32))[0], 300);
  EXPECT_EQ(values<double>(dot(f32({2}, {0.5f, 2}), f32({2}, {3, 4}), DType::kF64))[0], 9.5);
}

TEST(ProgramDotGeneral, HalfAccumulatesInFloat) {
  // f16: 2048 + 1 + 1 would stay 2048 when rounded per step; f32 accumulation gives 2050.
  const Tensor a = f16({3}, {2048, 1, 1});
  const Tensor ones = f16({3}, {1, 1, 1});
  EXPECT_EQ(half_values(dot(a, ones, DType::kF16))[0], 2050);
  const Tensor b = bf16({3}, {256, 1, 1});
  EXPECT_EQ(half_values(dot(b, bf16({3}, {1, 1, 1}), DType::kBF16))[0], 258);
}

TEST(ProgramDotGeneral, ComplexAndPred) {
  using C = std::complex<float>;
  const Tensor a = tensor_of<C>(DType::kC64, {2}, {C(1, 1), C(0, 2)});
  const Tensor b = tensor_of<C>(DType::kC64, {2}, {C(2, 0), C(1, 1)});
  // (1+i)*2 + 2i*(1+i) = 2+2i + 2i-2 = 4i.
  EXPECT_EQ(values<C>(dot(a, b, DType::kC64))[0], C(0, 4));
  const Tensor p = pred({2, 2}, {1, 0, 0, 0});
  const Tensor q = pred({2, 2}, {0, 1, 1, 0});
  EXPECT_EQ(values<uint8_t>(dot(p, q, DType::kPred)), (std::vector<uint8_t>{0, 1, 0, 0}));
}

TEST(ProgramDotGeneral, EmptyContractionGivesZerosAndEmptyFreeDims) {
  const Tensor r = dot(f32({2, 0}, {}), f32({0, 3}, {}), DType::kF32);
  EXPECT_EQ(values<float>(r), std::vector<float>(6, 0.0f));
  EXPECT_EQ(dot(f32({0, 2}, {}), f32({2, 3}, {1, 2, 3, 4, 5, 6}), DType::kF32).shape(),
            (Shape{0, 3}));
}

// Reference: every result element summed over all contracting index combinations, with each
// operand element located from the full multi-index.
TEST(ProgramDotGeneral, MatchesNaiveReferenceOnRandomDimOrders) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const int nb = rng() % 2, nc = 1 + rng() % 2, nl = rng() % 2, nr = rng() % 3;
    Shape bsz = random_shape(rng, nb, 3), csz = random_shape(rng, nc, 4);
    Shape lsz = random_shape(rng, nl, 3), rsz = random_shape(rng, nr, 3);
    // Dims of each operand: batch, contracting, free, shuffled into a random order.
    std::vector<int> lkind(nb + nc + nl), rkind(nb + nc + nr);
    std::iota(lkind.begin(), lkind.end(), 0);
    std::iota(rkind.begin(), rkind.end(), 0);
    std::shuffle(lkind.begin(), lkind.end(), rng);
    std::shuffle(rkind.begin(), rkind.end(), rng);
    // lkind[pos] = logical id: [0, nb) batch, [nb, nb+nc) contracting, rest free.
    auto size_of = [&](int id, int nfree_base, const Shape& fsz) {
      if (id < nb) return bsz[id];
      if (id < nb + nc) return csz[id - nb];
      return fsz[id - nfree_base];
    };
    Shape ls, rs;
    for (int id : lkind) ls.push_back(size_of(id, nb + nc, lsz));
    for (int id : rkind) rs.push_back(size_of(id, nb + nc, rsz));
    DotDimensions dims;
    std::vector<int64_t> lpos(lkind.size()), rpos(rkind.size());
    for (size_t p = 0; p < lkind.size(); ++p) lpos[lkind[p]] = p;
    for (size_t p = 0; p < rkind.size(); ++p) rpos[rkind[p]] = p;
    for (int i = 0; i < nb; ++i) {
      dims.lhs_batching_dimensions.push_back(lpos[i]);
      dims.rhs_batching_dimensions.push_back(rpos[i]);
    }
    for (int i = nb; i < nb + nc; ++i) {
      dims.lhs_contracting_dimensions.push_back(lpos[i]);
      dims.rhs_contracting_dimensions.push_back(rpos[i]);
    }
    std::vector<int64_t> lx(checked_numel(ls)), rx(checked_numel(rs));
    for (auto& v : lx) v = static_cast<int64_t>(rng() % 21) - 10;
    for (auto& v : rx) v = static_cast<int64_t>(rng() % 21) - 10;
    // Result dims: batch, lhs free in lhs order, rhs free in rhs order.
    std::vector<int> lfree, rfree;
    for (int id : lkind)
      if (id >= nb + nc) lfree.push_back(id);
    for (int id : rkind)
      if (id >= nb + nc) rfree.push_back(id);
    Shape out_shape = bsz;
    for (int id : lfree) out_shape.push_back(lsz[id - nb - nc]);
    for (int id : rfree) out_shape.push_back(rsz[id - nb - nc]);
    std::vector<int64_t> expected(checked_numel(out_shape), 0);
    for (size_t o = 0; o < expected.size(); ++o) {
      const auto oi = unflatten(o, out_shape);
      for (int64_t c = 0; c < checked_numel(csz); ++c) {
        const auto ci = unflatten(c, csz);
        std::vector<int64_t> li(ls.size()), ri(rs.size());
        for (int i = 0; i < nb; ++i) li[lpos[i]] = ri[rpos[i]] = oi[i];
        for (int i = 0; i < nc; ++i) li[lpos[nb + i]] = ri[rpos[nb + i]] = ci[i];
        for (size_t j = 0; j < lfree.size(); ++j) li[lpos[lfree[j]]] = oi[nb + j];
        for (size_t j = 0; j < rfree.size(); ++j) ri[rpos[rfree[j]]] = oi[nb + lfree.size() + j];
        expected[o] += lx[flatten(li, ls)] * rx[flatten(ri, rs)];
      }
    }
    Tensor lhs = i64(ls, lx), rhs = i64(rs, rx);
    if (trial % 3 == 0) lhs = column_major(lhs);
    const Tensor r = dot_general(lhs, rhs, dims, DType::kI64);
    EXPECT_EQ(r.shape(), out_shape);
    EXPECT_EQ(values<int64_t>(r), expected) << "trial " << trial;
  }
}

TEST(ProgramDotGeneral, RejectsInconsistentDims) {
  const Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(dot_general(a, a, {{}, {}, {1}, {1, 0}}, DType::kF32), Error);
  EXPECT_THROW(dot_general(a, a, {{}, {}, {1}, {0}}, DType::kF32), Error);
  EXPECT_THROW(dot_general(a, a, {{0}, {0}, {0}, {1}}, DType::kF32), Error);
  EXPECT_THROW(dot_general(a, a, {{}, {}, {2}, {1}}, DType::kF32), Error);
  try {
    dot(a, a, DType::kF32);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "dot_general: contracting dimension 1 of lhs has size 3 but dimension "
                 "0 of rhs has size 2.");
  }
}

}  // namespace
}  // namespace ndbuf::program
