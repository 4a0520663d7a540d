// Block-parallel loops, the thread count, fork marking and interrupt polling.
#include "ndbuf/memory/parallel.hpp"

#include <pthread.h>

#include <atomic>
#include <cstring>

#include "ndbuf/base/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace ndbuf {
namespace {

std::atomic<InterruptPoll> g_interrupt_poll{nullptr};

std::atomic<bool> g_forked_child{false};

void mark_forked_child() { g_forked_child.store(true); }

// Registered when the library loads, so every later fork() marks its child.
const int g_atfork_registered = ::pthread_atfork(nullptr, nullptr, &mark_forked_child);

}  // namespace

bool in_forked_child() { return g_forked_child.load(); }

void set_interrupt_poll(InterruptPoll poll) { g_interrupt_poll.store(poll); }

void check_interrupt() {
  const InterruptPoll poll = g_interrupt_poll.load();
  if (poll != nullptr && poll()) fail(ErrorKind::kInterrupted, "Interrupted by the user.");
}

int max_threads() {
#ifdef _OPENMP
  (void)g_atfork_registered;
  return in_forked_child() ? 1 : omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace ndbuf

namespace ndbuf {

void copy_bytes(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  constexpr size_t kPiece = size_t{1} << 20;
  if (nbytes < static_cast<size_t>(kParallelBytes) * 16 || max_threads() == 1) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  const auto pieces = static_cast<int64_t>((nbytes + kPiece - 1) / kPiece);
  char* out = static_cast<char*>(dst);
  const char* in = static_cast<const char*>(src);
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < pieces; ++p) {
    const size_t begin = static_cast<size_t>(p) * kPiece;
    std::memcpy(out + begin, in + begin, std::min(kPiece, nbytes - begin));
  }
}

}  // namespace ndbuf
