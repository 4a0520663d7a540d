// Each operand as a (batch, rows, cols) array in its own strides: a batch of matrices oneDNN
// reads in place. A reference implementation (no kernel for this CPU or layout) is refused:
// the GEMM path is faster than it. The primitives of each shape are made once and kept.
#include "program/ops/contraction/dot_dnnl.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "program/ops/contraction/dnnl_support.hpp"

namespace ndbuf::program {

#ifndef NDBUF_HAVE_DNNL

bool dot_through_dnnl(const Tensor&, const Tensor&, const DotSide&, const DotSide&, Tensor&) {
  return false;
}

#else

namespace {

using dnnl::memory;

// f32 products of at least this many multiply-adds go to oneDNN: measured on the 2-core test
// machine (Zen 4, AVX-512) against OpenBLAS's sgemm, oneDNN took 0.61-0.69x at 128^3 and
// 64 x 512 x 64, 0.74-0.83x at 256^3, 0.90-0.92x at 512^3, 0.82-0.88x at 4096 x 512 x 1024,
// 0.49-0.50x for 64 batches of 128 x 64 x 128, and the same bits on 1, 2 and 4 threads. Below
// it (a training step's 32 x 160 x 160: 0.90-1.07x) the BLAS's small-matrix kernels stay.
constexpr int64_t kDnnlF32Products = int64_t{1} << 21;

// `x` as (batch, rows, cols) over dim groups, or an empty desc when a group does not collapse.
memory::desc as_matrices(const Tensor& x, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                         memory::data_type type, std::vector<int64_t>& key) {
  memory::dims dims, strides;
  for (const std::vector<int64_t>* group : {&batch, &rows, &cols}) {
    const int64_t stride = group_stride(x, *group);
    if (stride < 0) return {};
    dims.push_back(dims_product(x.shape(), *group));
    strides.push_back(stride == 0 ? 1 : stride);  // a group of size 1: any stride
  }
  // A single matrix's batch stride spans the matrix: oneDNN 2.6 takes a batch stride of 1 for
  // a batch-innermost layout and gives it its slow generic GEMM instead of its brgemm kernels.
  if (dims[0] == 1) strides[0] = std::max(dims[1] * strides[1], dims[2] * strides[2]);
  append_key(key, dims, strides);
  return memory::desc(dims, type, strides);
}

struct MatmulPrimitives {
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul matmul;
};

// A reference implementation (no kernel for this CPU or layout) is refused.
std::shared_ptr<const MatmulPrimitives> make_primitives(const memory::desc& a,
                                                        const memory::desc& b) {
  const memory::dims& ad = a.dims();
  const memory::desc c({ad[0], ad[1], b.dims()[2]}, a.data_type(), memory::format_tag::abc);
  auto made = std::make_shared<MatmulPrimitives>();
  made->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), dnnl_user_scratchpad(),
                                          dnnl_cpu().engine);
  if (std::string(made->pd.impl_info_str()).rfind("ref", 0) == 0) {
    throw dnnl::error(dnnl_unimplemented, "");
  }
  made->matmul = dnnl::matmul(made->pd);
  return made;
}

void run(const Tensor& lhs, const Tensor& rhs, const MatmulPrimitives& p, Tensor& result) {
  DnnlCpu& e = dnnl_cpu();
  std::vector<Tensor> held;
  memory src(p.pd.src_desc(), e.engine, const_cast<void*>(lhs.data()));
  memory weights(p.pd.weights_desc(), e.engine, const_cast<void*>(rhs.data()));
  memory dst(p.pd.dst_desc(), e.engine, result.data());
  memory pad = dnnl_scratch(p.pd.scratchpad_desc(), held);
  p.matmul.execute(e.stream, {{DNNL_ARG_SRC, src},
                              {DNNL_ARG_WEIGHTS, weights},
                              {DNNL_ARG_DST, dst},
                              {DNNL_ARG_SCRATCHPAD, pad}});
  e.stream.wait();
}

// bf16 always (the widening path converts both operands), f32 from kDnnlF32Products.
std::optional<memory::data_type> dnnl_type(const Tensor& lhs, const Tensor& rhs,
                                           const Tensor& result, int64_t products) {
  const DType dtype = result.dtype();
  if (lhs.dtype() != dtype || rhs.dtype() != dtype) return std::nullopt;
  if (dtype == DType::kBF16) return memory::data_type::bf16;
  if (dtype == DType::kF32 && products >= kDnnlF32Products) return memory::data_type::f32;
  return std::nullopt;
}

}  // namespace

bool dot_through_dnnl(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
                      Tensor& result) {
  if (result.numel() == 0 || in_forked_child()) return false;
  const int64_t k = dims_product(lhs.shape(), l.contracting);
  const std::optional<memory::data_type> type = dnnl_type(lhs, rhs, result, result.numel() * k);
  if (!type || k == 0) return false;
  const int threads = threads_for(loop_bytes(result.numel(), 4 * k));
  std::vector<int64_t> key{threads, static_cast<int64_t>(*type)};
  const memory::desc a = as_matrices(lhs, l.batch, l.free, l.contracting, *type, key);
  const memory::desc b = as_matrices(rhs, r.batch, r.contracting, r.free, *type, key);
  if (a.is_zero() || b.is_zero()) return false;
  const OpenMpThreads scope(threads);
  const std::shared_ptr<const MatmulPrimitives> made =
      kept_primitives<MatmulPrimitives>(key, [&] { return make_primitives(a, b); });
  if (!made) return false;  // no optimised kernel here: the GEMM path takes it
  try {
    run(lhs, rhs, *made, result);
  } catch (const dnnl::error&) {
    return false;  // no optimised kernel here: the GEMM path takes it
  }
  return true;
}

#endif

}  // namespace ndbuf::program
