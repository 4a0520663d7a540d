// Ending the calling thread's OpenMP team (release_thread_team(), parallel.hpp).
#include <atomic>

#include "ndbuf/memory/parallel.hpp"

// omp_pause_resource_all() is OpenMP 5.0's; GCC declares it from GCC 9 on while still reporting
// OpenMP 4.5 in _OPENMP.
#if defined(_OPENMP) && \
    (_OPENMP >= 201811 || (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9))
#define NDBUF_HAVE_OMP_PAUSE 1
#endif

namespace ndbuf {

void release_thread_team() {
#ifdef NDBUF_HAVE_OMP_PAUSE
  // A soft pause frees the calling thread's team; regions started later build a new one.
  if (!in_forked_child() && omp_in_parallel() == 0) omp_pause_resource_all(omp_pause_soft);
#endif
}

int start_thread_team(int threads) {
  std::atomic<int> members{0};
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  members.fetch_add(1);  // an empty region may be compiled away
#else
  (void)threads;
  members.store(1);
#endif
  return members.load();
}

}  // namespace ndbuf
