// stablehlo.dot_general: float results through the BLAS gemm (dot_gemm.cpp); other dtypes
// packed into batch x M x K and batch x K x N blocks of the accumulator type, then an i-k-j loop
// per batch (rows of the result in parallel).
#include "program/ops/contraction/dot_general.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/contraction/dot_dnnl.hpp"
#include "program/ops/contraction/dot_gemm.hpp"
#include "program/ops/contraction/dot_pack.hpp"
#include "program/ops/contraction/dot_small.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "dot_general";

// Whether every axis is a dimension of a rank-`rank` tensor, none twice: the common case,
// checked without building check_axes()'s message (products in loops run this every step).
bool distinct_axes(const std::vector<int64_t>& axes, size_t rank) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(rank)) return false;
    if (std::find(axes.begin() + static_cast<std::ptrdiff_t>(i) + 1, axes.end(), axes[i]) !=
        axes.end()) {
      return false;
    }
  }
  return true;
}

DotSide split_dims(size_t rank, const std::vector<int64_t>& batch,
                   const std::vector<int64_t>& contracting, const char* side) {
  std::vector<int64_t> both = batch;
  both.insert(both.end(), contracting.begin(), contracting.end());
  if (!distinct_axes(both, rank)) {
    check_axes(both, rank, kOp, std::string(side) + " batching or contracting dimension");
  }
  DotSide dims{batch, {}, contracting};
  for (size_t k = 0; k < rank; ++k) {
    if (std::find(both.begin(), both.end(), static_cast<int64_t>(k)) == both.end()) {
      dims.free.push_back(static_cast<int64_t>(k));
    }
  }
  return dims;
}

// c[b, i, :] += a[b, i, k] * b[b, k, :] over k, for the rows [begin, end) of batch x M.
template <class A, class Add, class Mul>
void multiply_rows(const A* a, const A* b, A* c, int64_t m, int64_t k, int64_t n, int64_t begin,
                   int64_t end, Add add, Mul mul) {
  for (int64_t row = begin; row < end; ++row) {
    const int64_t batch = row / m;
    A* c_row = c + row * n;
    const A* a_row = a + row * k;
    const A* b_block = b + batch * k * n;
    for (int64_t p = 0; p < k; ++p) {
      const A scale = a_row[p];
      const A* b_row = b_block + p * n;
      for (int64_t j = 0; j < n; ++j) c_row[j] = add(c_row[j], mul(scale, b_row[j]));
    }
  }
}

template <DType R>
void contract(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
              Tensor& result) {
  using T = typename ElementType<R>::type;
  constexpr bool kPred = R == DType::kPred;
  using A = std::conditional_t<kPred, bool, Compute<T>>;
  const int64_t batch = dims_product(lhs.shape(), l.batch);
  const int64_t m = dims_product(lhs.shape(), l.free);
  const int64_t k = dims_product(lhs.shape(), l.contracting);
  const int64_t n = dims_product(rhs.shape(), r.free);
  std::vector<int64_t> lhs_order = l.batch, rhs_order = r.batch;
  lhs_order.insert(lhs_order.end(), l.free.begin(), l.free.end());
  lhs_order.insert(lhs_order.end(), l.contracting.begin(), l.contracting.end());
  rhs_order.insert(rhs_order.end(), r.contracting.begin(), r.contracting.end());
  rhs_order.insert(rhs_order.end(), r.free.begin(), r.free.end());
  std::unique_ptr<A[]> a(new A[lhs.numel()]), b(new A[rhs.numel()]);
  std::unique_ptr<A[]> c(new A[result.numel()]());
  pack_operand(lhs, lhs_order, a.get());
  pack_operand(rhs, rhs_order, b.get());
  auto add = [](A x, A y) -> A {
    if constexpr (kPred)
      return x || y;
    else
      return add_values(x, y);
  };
  auto mul = [](A x, A y) -> A {
    if constexpr (kPred)
      return x && y;
    else
      return multiply_values(x, y);
  };
  const int64_t bytes = static_cast<int64_t>(sizeof(A)) * std::max<int64_t>(1, k * n);
  for_each_block(
      batch * m, bytes,
      [&](int64_t begin, int64_t end) {
        multiply_rows(a.get(), b.get(), c.get(), m, k, n, begin, end, add, mul);
      },
      std::max<int64_t>(1, k * n));
  T* out = static_cast<T*>(result.data());
  for (int64_t i = 0; i < result.numel(); ++i) {
    if constexpr (kPred)
      out[i] = c[i] ? 1 : 0;
    else
      out[i] = store<T>(c[i]);
  }
}

void check_matching_sizes(const Shape& lhs, const Shape& rhs, const std::vector<int64_t>& ld,
                          const std::vector<int64_t>& rd, const std::string& what) {
  if (ld.size() != rd.size()) {
    kernel_error(kOp, "lhs and rhs list different numbers of " + what + " dimensions.");
  }
  for (size_t i = 0; i < ld.size(); ++i) {
    if (lhs[ld[i]] != rhs[rd[i]]) {
      kernel_error(kOp, what + " dimension " + std::to_string(ld[i]) + " of lhs has size " +
                            std::to_string(lhs[ld[i]]) + " but dimension " + std::to_string(rd[i]) +
                            " of rhs has size " + std::to_string(rhs[rd[i]]) + ".");
    }
  }
}

}  // namespace

DotPlan plan_dot(const Shape& lhs, const Shape& rhs, const DotDimensions& dims) {
  DotPlan p;
  p.l =
      split_dims(lhs.size(), dims.lhs_batching_dimensions, dims.lhs_contracting_dimensions, "lhs");
  p.r =
      split_dims(rhs.size(), dims.rhs_batching_dimensions, dims.rhs_contracting_dimensions, "rhs");
  check_matching_sizes(lhs, rhs, p.l.batch, p.r.batch, "batching");
  check_matching_sizes(lhs, rhs, p.l.contracting, p.r.contracting, "contracting");
  for (int64_t d : p.l.batch) p.shape.push_back(lhs[d]);
  for (int64_t d : p.l.free) p.shape.push_back(lhs[d]);
  for (int64_t d : p.r.free) p.shape.push_back(rhs[d]);
  p.small = small_dot_fits(lhs, rhs, p);
  return p;
}

Shape dot_general_shape(const Shape& lhs, const Shape& rhs, const DotDimensions& dims) {
  return plan_dot(lhs, rhs, dims).shape;
}

Tensor dot_general(const Tensor& lhs, const Tensor& rhs, const DotDimensions& dims,
                   DType result_dtype) {
  return planned_dot_general(lhs, rhs, plan_dot(lhs.shape(), rhs.shape(), dims), result_dtype);
}

Tensor planned_dot_general(const Tensor& lhs_any, const Tensor& rhs_any, const DotPlan& p,
                           DType result_dtype) {
  // Host operands are read where they are (a copy of the handle costs two allocations).
  std::optional<Tensor> lhs_copy, rhs_copy;
  const Tensor& lhs = is_host(lhs_any.device()) ? lhs_any : lhs_copy.emplace(to_host(lhs_any));
  const Tensor& rhs = is_host(rhs_any.device()) ? rhs_any : rhs_copy.emplace(to_host(rhs_any));
  Tensor result = Tensor::allocate(result_dtype, p.shape, Order::kRowMajor);
  if (p.small && small_dot(lhs, rhs, p, result)) return result;
  if (dot_through_dnnl(lhs, rhs, p.l, p.r, result)) return result;
  if (dot_through_gemm(lhs, rhs, p.l, p.r, result)) return result;
  dispatch(result_dtype,
           [&](auto tag) { contract<decltype(tag)::value>(lhs, rhs, p.l, p.r, result); });
  return result;
}

DotDimensions dot_dimensions(const Shape& lhs, const Shape& rhs) {
  if (lhs.size() < 1 || lhs.size() > 2 || rhs.size() < 1 || rhs.size() > 2) {
    kernel_error("dot", "operands must have rank 1 or 2, not " + shape_to_tuple(lhs) + " and " +
                            shape_to_tuple(rhs) + ".");
  }
  DotDimensions dims;
  dims.lhs_contracting_dimensions = {static_cast<int64_t>(lhs.size()) - 1};
  dims.rhs_contracting_dimensions = {0};
  return dims;
}

Tensor dot(const Tensor& lhs, const Tensor& rhs, DType result_dtype) {
  return dot_general(lhs, rhs, dot_dimensions(lhs.shape(), rhs.shape()), result_dtype);
}

}  // namespace ndbuf::program
