// oneDNN takes memory in any strides: the operands are described as they lie (an R array's
// column-major NHWC included), the primitive runs on channels-last copies made by oneDNN's own
// reorders where they differ, and writes the result in place when it is channels-last (JAX's
// NHWC output) or through one more reorder otherwise. The primitives of each shape are made once
// and kept (kept_primitives()), so a program run again neither generates its kernels again nor
// creates their descriptors.
#include "program/ops/contraction/convolution_dnnl.hpp"

#include <algorithm>
#include <memory>
#include <optional>
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

// A convolution as oneDNN sees it: each operand's memory as it lies, the window, and a key that
// tells one such convolution from another (with the thread count, which oneDNN's kernels are
// generated for).
struct ConvCall {
  memory::desc src_user, weights_user, dst_user;
  memory::dims strides, dilation, pad_low, pad_high;
  std::vector<int64_t> key;
};

// A tensor's memory as oneDNN sees it: logical dims in oneDNN's order (`order` lists the
// tensor's dims for each), the tensor's own strides.
memory::desc described(const Tensor& t, const std::vector<int64_t>& order,
                       std::vector<int64_t>& key) {
  memory::dims dims, strides;
  for (int64_t d : order) {
    dims.push_back(t.shape()[d]);
    strides.push_back(t.strides()[d]);
  }
  append_key(key, dims, strides);
  return memory::desc(dims, memory::data_type::f32, strides);
}

// Weights with feature groups: (g, o / g, i, spatial...) over the kernel's own strides.
memory::desc grouped_weights(const Tensor& w, const ConvDimensions& d, int64_t groups,
                             std::vector<int64_t>& key) {
  const int64_t out = w.shape()[d.kernel_output_feature];
  memory::dims dims{groups, out / groups, w.shape()[d.kernel_input_feature]};
  const int64_t out_stride = w.strides()[d.kernel_output_feature];
  memory::dims strides{out_stride * (out / groups), out_stride,
                       w.strides()[d.kernel_input_feature]};
  for (int64_t s : d.kernel_spatial) {
    dims.push_back(w.shape()[s]);
    strides.push_back(w.strides()[s]);
  }
  append_key(key, dims, strides);
  return memory::desc(dims, memory::data_type::f32, strides);
}

ConvCall conv_call(const Tensor& lhs, const Tensor& rhs, const ConvConfig& c, const Tensor& result,
                   int threads) {
  const ConvDimensions& d = c.dims;
  std::vector<int64_t> src_order{d.input_batch, d.input_feature},
      dst_order{d.output_batch, d.output_feature};
  src_order.insert(src_order.end(), d.input_spatial.begin(), d.input_spatial.end());
  dst_order.insert(dst_order.end(), d.output_spatial.begin(), d.output_spatial.end());
  ConvCall call;
  call.key = {threads, static_cast<int64_t>(d.input_spatial.size())};
  for (size_t k = 0; k < d.input_spatial.size(); ++k) {
    call.strides.push_back(c.window.strides[k]);
    call.dilation.push_back(c.window.rhs_dilation[k] - 1);  // oneDNN counts the holes
    call.pad_low.push_back(c.window.padding[k].first);
    call.pad_high.push_back(c.window.padding[k].second);
    call.key.insert(call.key.end(), {call.strides.back(), call.dilation.back(), call.pad_low.back(),
                                     call.pad_high.back()});
  }
  call.src_user = described(lhs, src_order, call.key);
  call.dst_user = described(result, dst_order, call.key);
  call.weights_user = grouped_weights(rhs, d, c.feature_group_count, call.key);
  return call;
}

memory::format_tag channels_last(size_t spatial) {
  return spatial == 1   ? memory::format_tag::nwc
         : spatial == 2 ? memory::format_tag::nhwc
                        : memory::format_tag::ndhwc;
}

// The primitives of one ConvCall, made once (kept_primitives()): the convolution on
// channels-last copies, and the reorders into and out of them where an operand lies otherwise.
struct ConvPrimitives {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  std::optional<dnnl::reorder> src_in, weights_in, dst_out;
};

std::optional<dnnl::reorder> reorder_between(const memory::desc& from, const memory::desc& to) {
  if (from == to) return std::nullopt;
  const dnnl::engine& engine = dnnl_cpu().engine;
  return dnnl::reorder(dnnl::reorder::primitive_desc(engine, from, engine, to));
}

std::shared_ptr<const ConvPrimitives> make_primitives(const ConvCall& call) {
  const size_t spatial = call.strides.size();
  const memory::desc src_md(call.src_user.dims(), memory::data_type::f32, channels_last(spatial));
  const memory::desc dst_md(call.dst_user.dims(), memory::data_type::f32, channels_last(spatial));
  const memory::desc weights_md(call.weights_user.dims(), memory::data_type::f32,
                                memory::format_tag::any);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, weights_md,
      dst_md, call.strides, call.dilation, call.pad_low, call.pad_high);
  auto made = std::make_shared<ConvPrimitives>();
  made->pd =
      dnnl::convolution_forward::primitive_desc(desc, dnnl_user_scratchpad(), dnnl_cpu().engine);
  made->conv = dnnl::convolution_forward(made->pd);
  made->src_in = reorder_between(call.src_user, made->pd.src_desc());
  made->weights_in = reorder_between(call.weights_user, made->pd.weights_desc());
  made->dst_out = reorder_between(made->pd.dst_desc(), call.dst_user);
  return made;
}

// `user` through `reorder` into fresh memory of `to`, or `user` itself without one.
memory reordered(const std::optional<dnnl::reorder>& reorder, memory user, const memory::desc& to,
                 std::vector<Tensor>& held) {
  if (!reorder) return user;
  memory copy = dnnl_scratch(to, held);
  reorder->execute(dnnl_cpu().stream, user, copy);
  return copy;
}

// False when oneDNN has no optimised kernel for this convolution.
bool run(const Tensor& lhs, const Tensor& rhs, const ConvConfig& c, Tensor& result, int threads) {
  const ConvCall call = conv_call(lhs, rhs, c, result, threads);
  const std::shared_ptr<const ConvPrimitives> made =
      kept_primitives<ConvPrimitives>(call.key, [&] { return make_primitives(call); });
  if (!made) return false;
  const ConvPrimitives& p = *made;
  DnnlCpu& e = dnnl_cpu();
  std::vector<Tensor> held;
  memory src(call.src_user, e.engine, const_cast<void*>(lhs.data()));
  memory weights(call.weights_user, e.engine, const_cast<void*>(rhs.data()));
  memory dst(call.dst_user, e.engine, result.data());
  memory src_in = reordered(p.src_in, src, p.pd.src_desc(), held);
  memory weights_in = reordered(p.weights_in, weights, p.pd.weights_desc(), held);
  memory dst_out = p.dst_out ? dnnl_scratch(p.pd.dst_desc(), held) : dst;
  memory pad = dnnl_scratch(p.pd.scratchpad_desc(), held);
  p.conv.execute(e.stream, {{DNNL_ARG_SRC, src_in},
                            {DNNL_ARG_WEIGHTS, weights_in},
                            {DNNL_ARG_DST, dst_out},
                            {DNNL_ARG_SCRATCHPAD, pad}});
  if (p.dst_out) p.dst_out->execute(e.stream, dst_out, dst);
  e.stream.wait();
  return true;
}

}  // namespace

bool convolution_through_dnnl(const Tensor& lhs, const Tensor& rhs, const ConvConfig& config,
                              Tensor& result) {
  if (!takes(lhs, rhs, config, result)) return false;
  // The work is the products: each result element reads a kernel's worth of inputs.
  const int64_t per_result =
      rhs.numel() / std::max<int64_t>(1, rhs.shape()[config.dims.kernel_output_feature]);
  const int count = threads_for(loop_bytes(result.numel(), 4 * per_result));
  const OpenMpThreads threads(count);
  try {
    return run(lhs, rhs, config, result, count);  // false: the GEMM path takes it
  } catch (const dnnl::error&) {
    return false;  // a case this oneDNN does not implement: the GEMM path takes it
  }
}

#endif

}  // namespace ndbuf::program
