// oneDNN takes memory in any strides: the operands are described as they lie (an R array's
// column-major NHWC included), the primitive runs on channels-last copies made by oneDNN's own
// reorders where they differ, and writes the result in place when it is channels-last (JAX's
// NHWC output) or through one more reorder otherwise. Primitives come from oneDNN's cache of
// created primitives, so a program run again does not generate its kernels again.
#include "program/ops/contraction/convolution_dnnl.hpp"

#include <algorithm>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "program/ops/contraction/dnnl_support.hpp"

namespace ndbuf::program {

#ifndef NDBUF_HAVE_DNNL

bool convolution_through_dnnl(const Tensor&, const Tensor&, const ConvConfig&, Tensor&) {
  return false;
}

#else

namespace {

using dnnl::memory;

bool takes(const Tensor& lhs, const Tensor& rhs, const ConvConfig& c, const Tensor& result) {
  const size_t spatial = c.dims.input_spatial.size();
  if (lhs.dtype() != DType::kF32 || rhs.dtype() != DType::kF32 || result.dtype() != DType::kF32) {
    return false;
  }
  if (spatial < 1 || spatial > 3 || c.batch_group_count != 1 || in_forked_child()) return false;
  for (size_t d = 0; d < spatial; ++d) {
    if (c.window.lhs_dilation[d] != 1 || c.window.reversal[d]) return false;
    if (c.window.padding[d].first < 0 || c.window.padding[d].second < 0) return false;
  }
  return true;
}

// A tensor's memory as oneDNN sees it: logical dims in oneDNN's order (`order` lists the
// tensor's dims for each), the tensor's own strides.
memory::desc described(const Tensor& t, const std::vector<int64_t>& order) {
  memory::dims dims, strides;
  for (int64_t d : order) {
    dims.push_back(t.shape()[d]);
    strides.push_back(t.strides()[d]);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

// Weights with feature groups: (g, o / g, i, spatial...) over the kernel's own strides.
memory::desc grouped_weights(const Tensor& w, const ConvDimensions& d, int64_t groups) {
  const int64_t out = w.shape()[d.kernel_output_feature];
  memory::dims dims{groups, out / groups, w.shape()[d.kernel_input_feature]};
  const int64_t out_stride = w.strides()[d.kernel_output_feature];
  memory::dims strides{out_stride * (out / groups), out_stride,
                       w.strides()[d.kernel_input_feature]};
  for (int64_t s : d.kernel_spatial) {
    dims.push_back(w.shape()[s]);
    strides.push_back(w.strides()[s]);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

memory::format_tag channels_last(size_t spatial) {
  return spatial == 1   ? memory::format_tag::nwc
         : spatial == 2 ? memory::format_tag::nhwc
                        : memory::format_tag::ndhwc;
}

// `user` in the primitive's layout `wanted`: itself when they agree, else a reordered copy.
memory in_layout(memory user, const memory::desc& wanted, std::vector<Tensor>& held) {
  if (user.get_desc() == wanted) return user;
  memory copy = dnnl_scratch(wanted, held);
  dnnl::reorder(user, copy).execute(dnnl_cpu().stream, user, copy);
  return copy;
}

void run(const Tensor& lhs, const Tensor& rhs, const ConvConfig& c, Tensor& result) {
  const ConvDimensions& d = c.dims;
  const size_t spatial = d.input_spatial.size();
  std::vector<int64_t> src_order{d.input_batch, d.input_feature},
      dst_order{d.output_batch, d.output_feature};
  src_order.insert(src_order.end(), d.input_spatial.begin(), d.input_spatial.end());
  dst_order.insert(dst_order.end(), d.output_spatial.begin(), d.output_spatial.end());
  memory::dims strides, dilation, pad_low, pad_high;
  for (size_t k = 0; k < spatial; ++k) {
    strides.push_back(c.window.strides[k]);
    dilation.push_back(c.window.rhs_dilation[k] - 1);  // oneDNN counts the holes
    pad_low.push_back(c.window.padding[k].first);
    pad_high.push_back(c.window.padding[k].second);
  }
  DnnlCpu& e = dnnl_cpu();
  const memory::desc src_user = described(lhs, src_order), dst_user = described(result, dst_order);
  const memory::desc weights_user = grouped_weights(rhs, d, c.feature_group_count);
  const memory::desc src_md(src_user.dims(), memory::data_type::f32, channels_last(spatial));
  const memory::desc dst_md(dst_user.dims(), memory::data_type::f32, channels_last(spatial));
  const memory::desc weights_md(weights_user.dims(), memory::data_type::f32,
                                memory::format_tag::any);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, weights_md,
      dst_md, strides, dilation, pad_low, pad_high);
  const dnnl::convolution_forward::primitive_desc pd(desc, dnnl_user_scratchpad(), e.engine);
  std::vector<Tensor> held;
  memory src(src_user, e.engine, const_cast<void*>(lhs.data()));
  memory weights(weights_user, e.engine, const_cast<void*>(rhs.data()));
  memory dst(dst_user, e.engine, result.data());
  memory src_in = in_layout(src, pd.src_desc(), held);
  memory weights_in = in_layout(weights, pd.weights_desc(), held);
  const bool direct = dst_user == pd.dst_desc();
  memory dst_out = direct ? dst : dnnl_scratch(pd.dst_desc(), held);
  memory pad = dnnl_scratch(pd.scratchpad_desc(), held);
  dnnl::convolution_forward(pd).execute(e.stream, {{DNNL_ARG_SRC, src_in},
                                                   {DNNL_ARG_WEIGHTS, weights_in},
                                                   {DNNL_ARG_DST, dst_out},
                                                   {DNNL_ARG_SCRATCHPAD, pad}});
  if (!direct) dnnl::reorder(dst_out, dst).execute(e.stream, dst_out, dst);
  e.stream.wait();
}

}  // namespace

bool convolution_through_dnnl(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                              Tensor& result) {
  if (!takes(lhs, rhs, config, result)) return false;
  // The work is the products: each result element reads a kernel's worth of inputs.
  const int64_t per_result =
      rhs.numel() / std::max<int64_t>(1, rhs.shape()[config.dims.kernel_output_feature]);
  const OpenMpThreads threads(threads_for(loop_bytes(result.numel(), 4 * per_result)));
  try {
    run(lhs, rhs, config, result);
  } catch (const dnnl::error&) {
    return false;  // a case this oneDNN does not implement: the GEMM path takes it
  }
  return true;
}

#endif

}  // namespace ndbuf::program
