// Each operand as a (batch, rows, cols) array in its own strides: a batch of matrices oneDNN
// reads in place. A reference implementation (no kernel for this CPU or layout) is refused:
// the widening GEMM path is faster than it.
#include "program/ops/contraction/dot_dnnl.hpp"

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

// `x` as (batch, rows, cols) over dim groups, or an empty desc when a group does not collapse.
memory::desc as_matrices(const Tensor& x, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& rows, const std::vector<int64_t>& cols) {
  memory::dims dims, strides;
  for (const std::vector<int64_t>* group : {&batch, &rows, &cols}) {
    const int64_t stride = group_stride(x, *group);
    if (stride < 0) return {};
    dims.push_back(dims_product(x.shape(), *group));
    strides.push_back(stride == 0 ? 1 : stride);  // a group of size 1: any stride
  }
  return memory::desc(dims, memory::data_type::bf16, strides);
}

void run(const Tensor& lhs, const Tensor& rhs, const memory::desc& a, const memory::desc& b,
         Tensor& result) {
  DnnlCpu& e = dnnl_cpu();
  const memory::dims& ad = a.dims();
  const memory::desc c({ad[0], ad[1], b.dims()[2]}, memory::data_type::bf16,
                       memory::format_tag::abc);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), dnnl_user_scratchpad(),
                                        e.engine);
  if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
    throw dnnl::error(dnnl_unimplemented, "");
  std::vector<Tensor> held;
  memory src(a, e.engine, const_cast<void*>(lhs.data()));
  memory weights(b, e.engine, const_cast<void*>(rhs.data()));
  memory dst(c, e.engine, result.data());
  memory pad = dnnl_scratch(pd.scratchpad_desc(), held);
  dnnl::matmul(pd).execute(e.stream, {{DNNL_ARG_SRC, src},
                                      {DNNL_ARG_WEIGHTS, weights},
                                      {DNNL_ARG_DST, dst},
                                      {DNNL_ARG_SCRATCHPAD, pad}});
  e.stream.wait();
}

}  // namespace

bool dot_through_dnnl(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
                      Tensor& result) {
  if (lhs.dtype() != DType::kBF16 || rhs.dtype() != DType::kBF16 ||
      result.dtype() != DType::kBF16 || result.numel() == 0 || in_forked_child()) {
    return false;
  }
  const memory::desc a = as_matrices(lhs, l.batch, l.free, l.contracting);
  const memory::desc b = as_matrices(rhs, r.batch, r.contracting, r.free);
  const int64_t k = dims_product(lhs.shape(), l.contracting);
  if (a.is_zero() || b.is_zero() || k == 0) return false;
  const OpenMpThreads threads(threads_for(loop_bytes(result.numel(), 4 * k)));
  try {
    run(lhs, rhs, a, b, result);
  } catch (const dnnl::error&) {
    return false;  // no optimised kernel here: the widening GEMM path takes it
  }
  return true;
}

#endif

}  // namespace ndbuf::program
