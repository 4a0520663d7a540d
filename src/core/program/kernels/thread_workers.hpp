// Parallel loops whose threads each need their own working memory (an element tile's registers,
// a fused loop's block registers): made once per thread and loop, on the thread's first block.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/block_scratch.hpp"

namespace ndbuf::program {

// body(begin, end, worker) over the blocks of [0, count) as for_each_block_rethrowing runs them,
// `worker` the calling thread's, made by make() (which returns a std::unique_ptr) on its first
// block. A loop under kParallelBytes runs on the calling thread alone: one worker, and the
// thread count (R's option) is not asked for on every small step.
template <class Make, class Body>
void for_each_block_with_workers(int64_t count, int64_t bytes_per_item, int64_t elements_per_item,
                                 Make&& make, Body&& body) {
  using Worker = typename std::invoke_result_t<Make&>::element_type;
  const bool serial = loop_bytes(count, bytes_per_item) < kParallelBytes;
  std::vector<std::unique_ptr<Worker>> workers(serial ? size_t{1}
                                                      : static_cast<size_t>(max_threads()));
  for_each_block_rethrowing(
      count, bytes_per_item,
      [&](int64_t begin, int64_t end) {
        auto& worker = workers[static_cast<size_t>(current_thread_index()) % workers.size()];
        if (!worker) worker = make();
        body(begin, end, *worker);
      },
      elements_per_item);
}

}  // namespace ndbuf::program
