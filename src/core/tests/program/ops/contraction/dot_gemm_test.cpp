// Tests of dot_general's BLAS path (f16 / bf16 / f32 / f64) against a naive loop in double, over
// row- and column-major and permuted operands, every transpose and degenerate sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "ndbuf/memory/storage.hpp"
#include "program/ops/contraction/dot_general.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

// A tensor of logical `shape` holding `v` (row-major logical order) whose memory holds the dims
// in `memory_order` (outermost first): a view with permuted strides over dense memory.
Tensor laid_out(DType dtype, const Shape& shape, const std::vector<double>& v,
                const std::vector<size_t>& memory_order) {
  Shape memory_shape;
  for (size_t d : memory_order) memory_shape.push_back(shape[d]);
  Tensor dense = Tensor::allocate(dtype, memory_shape, Order::kRowMajor);
  Strides memory_strides(shape.size(), 1), strides(shape.size());
  for (size_t k = shape.size(); k-- > 1;) {
    memory_strides[k - 1] = memory_strides[k] * memory_shape[k];
  }
  for (size_t k = 0; k < shape.size(); ++k) strides[memory_order[k]] = memory_strides[k];
  Tensor view(dense.storage(), dtype, shape, strides, dense.offset());
  char* base = static_cast<char*>(view.data());
  for (size_t i = 0; i < v.size(); ++i) {
    const auto index = unflatten(static_cast<int64_t>(i), shape);
    int64_t pos = 0;
    for (size_t k = 0; k < shape.size(); ++k) pos += index[k] * strides[k];
    char* at = base + pos * static_cast<int64_t>(itemsize(dtype));
    if (dtype == DType::kF64) {
      *reinterpret_cast<double*>(at) = v[i];
    } else if (dtype == DType::kF32) {
      *reinterpret_cast<float*>(at) = static_cast<float>(v[i]);
    } else if (dtype == DType::kF16) {
      *reinterpret_cast<Half*>(at) = to_half(v[i]);
    } else {
      *reinterpret_cast<BFloat16*>(at) = to_bfloat16(v[i]);
    }
  }
  return view;
}

// Naive dot_general in double straight from the spec's index definition.
std::vector<double> naive_dot(const Shape& ls, const std::vector<double>& lv, const Shape& rs,
                              const std::vector<double>& rv, const DotDimensions& d,
                              Shape& out_shape) {
  auto free_dims = [](size_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> f;
    for (size_t k = 0; k < rank; ++k) {
      const auto dk = static_cast<int64_t>(k);
      if (std::count(a.begin(), a.end(), dk) + std::count(b.begin(), b.end(), dk) == 0) {
        f.push_back(dk);
      }
    }
    return f;
  };
  const auto lf = free_dims(ls.size(), d.lhs_batching_dimensions, d.lhs_contracting_dimensions);
  const auto rf = free_dims(rs.size(), d.rhs_batching_dimensions, d.rhs_contracting_dimensions);
  out_shape.clear();
  Shape cs;
  for (int64_t b : d.lhs_batching_dimensions) out_shape.push_back(ls[b]);
  for (int64_t f : lf) out_shape.push_back(ls[f]);
  for (int64_t f : rf) out_shape.push_back(rs[f]);
  for (int64_t c : d.lhs_contracting_dimensions) cs.push_back(ls[c]);
  std::vector<double> out(static_cast<size_t>(checked_numel(out_shape)), 0.0);
  const size_t nb = d.lhs_batching_dimensions.size();
  for (size_t o = 0; o < out.size(); ++o) {
    const auto oi = unflatten(static_cast<int64_t>(o), out_shape);
    for (int64_t c = 0; c < checked_numel(cs); ++c) {
      const auto ci = unflatten(c, cs);
      std::vector<int64_t> li(ls.size()), ri(rs.size());
      for (size_t i = 0; i < nb; ++i) {
        li[d.lhs_batching_dimensions[i]] = ri[d.rhs_batching_dimensions[i]] = oi[i];
      }
      for (size_t i = 0; i < ci.size(); ++i) {
        li[d.lhs_contracting_dimensions[i]] = ri[d.rhs_contracting_dimensions[i]] = ci[i];
      }
      for (size_t j = 0; j < lf.size(); ++j) li[lf[j]] = oi[nb + j];
      for (size_t j = 0; j < rf.size(); ++j) ri[rf[j]] = oi[nb + lf.size() + j];
      out[o] += lv[flatten(li, ls)] * rv[flatten(ri, rs)];
    }
  }
  return out;
}

std::vector<double> result_values(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kF64:
      return values<double>(t);
    case DType::kF32: {
      const auto v = values<float>(t);
      return {v.begin(), v.end()};
    }
    default:
      return half_values(t);
  }
}

std::vector<double> random_values(std::mt19937& rng, const Shape& s, bool small_integers) {
  std::vector<double> v(static_cast<size_t>(checked_numel(s)));
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : v) x = small_integers ? static_cast<double>(rng() % 9) - 4 : u(rng);
  return v;
}

// Runs one product and compares with the naive loop: exact for f16 / bf16 (small integers,
// exact in f32, rounded once), within K * epsilon of the absolute sum otherwise.
void expect_matches(DType dtype, const Shape& ls, const std::vector<size_t>& lorder,
                    const Shape& rs, const std::vector<size_t>& rorder, const DotDimensions& d,
                    std::mt19937& rng) {
  const bool half = dtype == DType::kF16 || dtype == DType::kBF16;
  const auto lv = random_values(rng, ls, half), rv = random_values(rng, rs, half);
  Shape out_shape;
  const auto expected = naive_dot(ls, lv, rs, rv, d, out_shape);
  const Tensor r =
      dot_general(laid_out(dtype, ls, lv, lorder), laid_out(dtype, rs, rv, rorder), d, dtype);
  ASSERT_EQ(r.shape(), out_shape);
  const auto got = result_values(r);
  int64_t k = 1;
  for (int64_t c : d.lhs_contracting_dimensions) k *= ls[c];
  const double eps = dtype == DType::kF64 ? std::numeric_limits<double>::epsilon()
                                          : std::numeric_limits<float>::epsilon();
  for (size_t i = 0; i < got.size(); ++i) {
    if (half) {
      const Tensor rounded =
          dtype == DType::kF16 ? f16({}, {expected[i]}) : bf16({}, {expected[i]});
      EXPECT_EQ(got[i], half_values(rounded)[0]) << i;
    } else {
      EXPECT_NEAR(got[i], expected[i], 2.0 * static_cast<double>(k) * eps + 1e-300) << i;
    }
  }
}

std::vector<size_t> identity_order(size_t rank) {
  std::vector<size_t> o(rank);
  std::iota(o.begin(), o.end(), 0);
  return o;
}
std::vector<size_t> reversed_order(size_t rank) {
  auto o = identity_order(rank);
  std::reverse(o.begin(), o.end());
  return o;
}

TEST(ProgramDotGemm, EveryTransposeAndStorageOrder) {
  std::mt19937 rng(3);
  const int64_t m = 5, k = 7, n = 3;
  for (DType dtype : {DType::kF32, DType::kF64}) {
    for (int lhs_case = 0; lhs_case < 4; ++lhs_case) {
      for (int rhs_case = 0; rhs_case < 4; ++rhs_case) {
        // Bit 0: the operand is given transposed (contracting dim first for lhs, last for rhs);
        // bit 1: stored column-major.
        const bool lt = lhs_case & 1, rt = rhs_case & 1;
        const Shape ls = lt ? Shape{k, m} : Shape{m, k}, rs = rt ? Shape{n, k} : Shape{k, n};
        const DotDimensions d{{}, {}, {lt ? 0 : 1}, {rt ? 1 : 0}};
        expect_matches(dtype, ls, (lhs_case & 2) ? reversed_order(2) : identity_order(2), rs,
                       (rhs_case & 2) ? reversed_order(2) : identity_order(2), d, rng);
      }
    }
  }
}

TEST(ProgramDotGemm, RandomDimOrdersAndMemoryLayouts) {
  std::mt19937 rng(17);
  const DType types[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};
  for (int trial = 0; trial < 80; ++trial) {
    // Batch, contracting and free dims in random positions, each operand stored in a random
    // permutation of its dims (so some are handed over in place and some packed).
    const int nb = rng() % 3, nc = rng() % 3, nl = rng() % 3, nr = rng() % 3;
    const Shape bsz = random_shape(rng, nb, 3), csz = random_shape(rng, nc, 5);
    const Shape lsz = random_shape(rng, nl, 4), rsz = random_shape(rng, nr, 4);
    std::vector<int> lkind(nb + nc + nl), rkind(nb + nc + nr);
    std::iota(lkind.begin(), lkind.end(), 0);
    std::iota(rkind.begin(), rkind.end(), 0);
    std::shuffle(lkind.begin(), lkind.end(), rng);
    std::shuffle(rkind.begin(), rkind.end(), rng);
    Shape ls, rs;
    DotDimensions d;
    d.lhs_batching_dimensions.resize(nb);
    d.rhs_batching_dimensions.resize(nb);
    d.lhs_contracting_dimensions.resize(nc);
    d.rhs_contracting_dimensions.resize(nc);
    for (size_t p = 0; p < lkind.size(); ++p) {
      const int id = lkind[p];
      ls.push_back(id < nb ? bsz[id] : id < nb + nc ? csz[id - nb] : lsz[id - nb - nc]);
      if (id < nb)
        d.lhs_batching_dimensions[id] = p;
      else if (id < nb + nc)
        d.lhs_contracting_dimensions[id - nb] = p;
    }
    for (size_t p = 0; p < rkind.size(); ++p) {
      const int id = rkind[p];
      rs.push_back(id < nb ? bsz[id] : id < nb + nc ? csz[id - nb] : rsz[id - nb - nc]);
      if (id < nb)
        d.rhs_batching_dimensions[id] = p;
      else if (id < nb + nc)
        d.rhs_contracting_dimensions[id - nb] = p;
    }
    auto lorder = identity_order(ls.size()), rorder = identity_order(rs.size());
    std::shuffle(lorder.begin(), lorder.end(), rng);
    std::shuffle(rorder.begin(), rorder.end(), rng);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_matches(types[trial % 4], ls, lorder, rs, rorder, d, rng);
  }
}

TEST(ProgramDotGemm, DegenerateSizes) {
  std::mt19937 rng(5);
  for (DType dtype : {DType::kF32, DType::kF64, DType::kF16}) {
    // K = 0 gives zeros; M = 1 and N = 1 (matrix-vector both ways); an empty batch and empty
    // free dims give empty results.
    expect_matches(dtype, {3, 0}, {1, 0}, {0, 4}, {0, 1}, {{}, {}, {1}, {0}}, rng);
    expect_matches(dtype, {1, 6}, {0, 1}, {6, 4}, {1, 0}, {{}, {}, {1}, {0}}, rng);
    expect_matches(dtype, {5, 6}, {1, 0}, {6, 1}, {0, 1}, {{}, {}, {1}, {0}}, rng);
    expect_matches(dtype, {6}, {0}, {6}, {0}, {{}, {}, {0}, {0}}, rng);
    expect_matches(dtype, {0, 2, 3}, {0, 1, 2}, {0, 3, 2}, {2, 1, 0}, {{0}, {0}, {2}, {1}}, rng);
    expect_matches(dtype, {4, 0, 3}, {0, 1, 2}, {4, 3, 2}, {0, 1, 2}, {{0}, {0}, {2}, {1}}, rng);
  }
}

TEST(ProgramDotGemm, SquareThousandInFloat) {
  const int64_t size = 1024;
  std::mt19937 rng(9);
  std::vector<float> a(size * size), b(size * size);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& x : a) x = u(rng);
  for (auto& x : b) x = u(rng);
  const Tensor c = dot(f32({size, size}, a), column_major(f32({size, size}, b)), DType::kF32);
  const auto got = values<float>(c);
  // Every 61st row against the loop in double, within K * epsilon of the sum of |products|.
  for (int64_t i = 0; i < size; i += 61) {
    for (int64_t j = 0; j < size; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < size; ++p) {
        const double prod = static_cast<double>(a[i * size + p]) * b[p * size + j];
        sum += prod;
        magnitude += std::abs(prod);
      }
      const double tolerance = size * std::numeric_limits<float>::epsilon() * magnitude;
      ASSERT_NEAR(got[i * size + j], sum, tolerance) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace ndbuf::program
