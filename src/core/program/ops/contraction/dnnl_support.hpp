// What the oneDNN paths share (builds with NDBUF_HAVE_DNNL only): the CPU engine and stream,
// memory for oneDNN from our allocator, and OpenMP's thread count for a call.
#pragma once

#ifdef NDBUF_HAVE_DNNL

#include <dnnl.hpp>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

struct DnnlCpu {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

DnnlCpu& dnnl_cpu();

// Memory of `md`'s size from our allocator (large blocks come from the recycler, so a program
// run again reuses pages instead of faulting fresh ones in, as oneDNN's own allocations would);
// `held` keeps it until the primitive has run.
dnnl::memory dnnl_scratch(const dnnl::memory::desc& md, std::vector<Tensor>& held);

// An attribute asking for the scratchpad to come from us (dnnl_scratch()).
dnnl::primitive_attr dnnl_user_scratchpad();

// oneDNN's OpenMP threads follow the calling thread's count: `threads` for the scope's life.
class OpenMpThreads {
 public:
  explicit OpenMpThreads(int threads);
  ~OpenMpThreads();
  OpenMpThreads(const OpenMpThreads&) = delete;
  OpenMpThreads& operator=(const OpenMpThreads&) = delete;

 private:
  int previous_ = 1;
};

}  // namespace ndbuf::program

#endif
