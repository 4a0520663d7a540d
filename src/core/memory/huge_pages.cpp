// Huge page advice for large fresh host blocks (Linux; a no-op where madvise lacks it).
#include "ndbuf/memory/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>

namespace ndbuf {

bool huge_pages_enabled() noexcept {
  const char* setting = std::getenv("PJRT_HUGE_PAGES");
  return setting != nullptr && std::strcmp(setting, "1") == 0;
}

HugePageRange huge_page_interior(uintptr_t address, size_t nbytes) noexcept {
  if (nbytes < kHugePageMinBytes) return {address, 0};
  const uintptr_t mask = kHugePageBytes - 1;
  const uintptr_t begin = (address + mask) & ~mask;
  const uintptr_t end = (address + nbytes) & ~mask;
  if (end <= begin) return {address, 0};
  return {begin, static_cast<size_t>(end - begin)};
}

size_t advise_huge_pages(void* data, size_t nbytes) noexcept {
#ifdef MADV_HUGEPAGE
  if (!huge_pages_enabled()) return 0;
  const HugePageRange range = huge_page_interior(reinterpret_cast<uintptr_t>(data), nbytes);
  if (range.nbytes == 0) return 0;
  if (madvise(reinterpret_cast<void*>(range.begin), range.nbytes, MADV_HUGEPAGE) != 0) return 0;
  return range.nbytes;
#else
  (void)data;
  (void)nbytes;
  return 0;
#endif
}

}  // namespace ndbuf
