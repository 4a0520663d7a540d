// stablehlo.convolution: float results through the GEMM path (convolution_gemm.cpp); the plain
// loops here for every other dtype. Both read the operands packed into the canonical layouts
// of convolution_plan.hpp, converted to the accumulator type.
#include "program/ops/contraction/convolution.hpp"

#include <memory>
#include <type_traits>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/ops/contraction/convolution_dnnl.hpp"
#include "program/ops/contraction/convolution_plan.hpp"
#include "program/ops/contraction/dot_pack.hpp"

namespace ndbuf::program {
namespace {

// The lhs element offset (canonical layout, feature 0) that output position `position` reads
// at kernel position `kernel` of image `image`, or -1 where it reads padding.
int64_t input_offset(const ConvPlan& p, int64_t image, int64_t position, int64_t kernel) {
  int64_t offset = 0, scale = 1;
  for (size_t d = p.in_spatial.size(); d-- > 0;) {
    const int64_t src = p.source(d, position % p.out_spatial[d], kernel % p.kernel_spatial[d]);
    if (src < 0) return -1;
    offset += src * scale;
    scale *= p.in_spatial[d];
    position /= p.out_spatial[d];
    kernel /= p.kernel_spatial[d];
  }
  return (image * p.in_positions + offset) * p.features;
}

// One output element: the sum over kernel positions and the group's input features.
template <class A, class Add, class Mul>
A convolve_one(const ConvPlan& p, const A* x, const A* w, int64_t image, int64_t c0,
               int64_t feature, int64_t position, Add add, Mul mul) {
  A acc{};
  for (int64_t k = 0; k < p.kernel_positions; ++k) {
    const int64_t offset = input_offset(p, image, position, k);
    if (offset < 0) continue;
    const A* row = x + offset + c0;
    const A* column = w + k * p.group_in * p.out_features + feature;
    for (int64_t i = 0; i < p.group_in; ++i) {
      acc = add(acc, mul(row[i], column[i * p.out_features]));
    }
  }
  return acc;
}

template <DType R>
void reference_loops(const Tensor& lhs, const Tensor& rhs, const ConvPlan& p, Tensor& result) {
  using T = typename ElementType<R>::type;
  constexpr bool kPred = R == DType::kPred;
  using A = std::conditional_t<kPred, bool, Compute<T>>;
  std::unique_ptr<A[]> x(new A[std::max<int64_t>(1, lhs.numel())]);
  std::unique_ptr<A[]> w(new A[std::max<int64_t>(1, rhs.numel())]);
  pack_operand(lhs, p.lhs_order, x.get());
  pack_operand(rhs, p.rhs_order, w.get());
  auto add = [](A a, A b) -> A {
    if constexpr (kPred)
      return a || b;
    else
      return add_values(a, b);
  };
  auto mul = [](A a, A b) -> A {
    if constexpr (kPred)
      return a && b;
    else
      return multiply_values(a, b);
  };
  T* out = static_cast<T*>(result.data());
  const int64_t work = std::max<int64_t>(1, p.out_positions * p.kernel_positions * p.group_in);
  // One item is one (output batch, output feature) pair over every output position.
  for_each_block(
      p.out_batch * p.out_features, static_cast<int64_t>(sizeof(A)) * work,
      [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const int64_t n = item / p.out_features, feature = item % p.out_features;
          const int64_t g = feature / p.group_out;
          const int64_t image = p.image(n, g), c0 = p.first_feature(g);
          T* base = out + n * p.batch_stride + feature * p.feature_stride;
          for (int64_t pos = 0; pos < p.out_positions; ++pos) {
            const A acc = convolve_one(p, x.get(), w.get(), image, c0, feature, pos, add, mul);
            if constexpr (kPred)
              base[p.position_offset(pos)] = acc ? 1 : 0;
            else
              base[p.position_offset(pos)] = store<T>(acc);
          }
        }
      },
      work);
}

Tensor run(const Tensor& lhs_any, const Tensor& rhs_any, const ConvConfig& config,
           DType result_dtype, bool allow_gemm) {
  const Tensor lhs = to_host(lhs_any), rhs = to_host(rhs_any);
  ConvConfig checked = config;
  const Shape shape = convolution_shape(lhs.shape(), rhs.shape(), checked);
  Tensor result = Tensor::allocate(result_dtype, shape, Order::kRowMajor);
  if (result.numel() == 0) return result;
  if (allow_gemm && convolution_through_dnnl(lhs, rhs, checked, result)) return result;
  const ConvPlan plan = plan_convolution(lhs.shape(), rhs.shape(), checked);
  if (allow_gemm && convolution_through_gemm(lhs, rhs, plan, result)) return result;
  dispatch(result_dtype,
           [&](auto tag) { reference_loops<decltype(tag)::value>(lhs, rhs, plan, result); });
  return result;
}

}  // namespace

Tensor convolution(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                   DType result_dtype) {
  return run(lhs, rhs, config, result_dtype, true);
}

Tensor convolution_reference(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                             DType result_dtype) {
  return run(lhs, rhs, config, result_dtype, false);
}

}  // namespace ndbuf::program
