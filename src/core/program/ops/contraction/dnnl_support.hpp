// What the oneDNN paths share (builds with NDBUF_HAVE_DNNL only): the CPU engine and stream,
// memory for oneDNN from our allocator, and OpenMP's thread count for a call.
#pragma once

#ifdef NDBUF_HAVE_DNNL

#include <dnnl.hpp>
#include <map>
#include <memory>
#include <mutex>
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

// The primitives `make()` creates for `key` (operand dims and strides, window, thread count:
// whatever tells one call's primitives from another's), made once and kept, the last 64 of each
// kind: creating a primitive descriptor costs tens of microseconds a call, which oneDNN's own
// cache of created primitives does not save. A key whose `make` threw dnnl::error (no optimised
// kernel for this CPU or layout) is kept as null, so later calls fall back without trying again.
template <class Made, class Make>
std::shared_ptr<const Made> kept_primitives(const std::vector<int64_t>& key, Make make) {
  constexpr size_t kKept = 64;
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::shared_ptr<const Made>> kept;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = kept.find(key);
    if (it != kept.end()) return it->second;
  }
  std::shared_ptr<const Made> made;
  try {
    made = make();
  } catch (const dnnl::error&) {
    made = nullptr;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept.size() >= kKept) kept.clear();
  kept.emplace(key, made);
  return made;
}

// `dims` and `strides` appended to `key`.
void append_key(std::vector<int64_t>& key, const dnnl::memory::dims& dims,
                const dnnl::memory::dims& strides);

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
