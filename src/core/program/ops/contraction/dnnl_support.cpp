// The oneDNN engine and the memory and threads its calls use (dnnl_support.hpp).
#include "program/ops/contraction/dnnl_support.hpp"

#ifdef NDBUF_HAVE_DNNL

#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf::program {

DnnlCpu& dnnl_cpu() {
  static DnnlCpu cpu;
  return cpu;
}

dnnl::memory dnnl_scratch(const dnnl::memory::desc& md, std::vector<Tensor>& held) {
  const auto bytes = static_cast<int64_t>(md.get_size());
  held.push_back(Tensor::allocate(DType::kU8, {std::max<int64_t>(1, bytes)}, Order::kRowMajor));
  return dnnl::memory(md, dnnl_cpu().engine, held.back().data());
}

dnnl::primitive_attr dnnl_user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void append_key(std::vector<int64_t>& key, const dnnl::memory::dims& dims,
                const dnnl::memory::dims& strides) {
  key.insert(key.end(), dims.begin(), dims.end());
  key.insert(key.end(), strides.begin(), strides.end());
}

OpenMpThreads::OpenMpThreads(int threads) {
#ifdef _OPENMP
  previous_ = omp_get_max_threads();
  omp_set_num_threads(std::max(1, threads));
#else
  (void)threads;
#endif
}

OpenMpThreads::~OpenMpThreads() {
#ifdef _OPENMP
  omp_set_num_threads(previous_);
#endif
}

}  // namespace ndbuf::program

#endif
