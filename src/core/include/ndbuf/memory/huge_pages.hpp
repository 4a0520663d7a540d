// Transparent huge pages for large fresh host memory: fewer page faults on first touch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ndbuf {

// The huge page size asked for (x86-64 and arm64 with 4 KiB base pages).
inline constexpr size_t kHugePageBytes = size_t{2} << 20;
// Smaller blocks are left alone: the faults saved would not pay for the advice.
inline constexpr size_t kHugePageMinBytes = size_t{4} << 20;

// The whole huge pages inside [address, address + nbytes): an empty range when the block is
// under kHugePageMinBytes or holds no aligned huge page.
struct HugePageRange {
  uintptr_t begin;
  size_t nbytes;
};
HugePageRange huge_page_interior(uintptr_t address, size_t nbytes) noexcept;

// Whether large blocks are advised: only when the environment variable PJRT_HUGE_PAGES is
// "1" (read at every call, so it can change while the process runs). Off by default: on
// virtual machines that hand free memory back to their host (free page reporting), a huge
// page faulted in after a pause costs far more than the small pages it replaces.
bool huge_pages_enabled() noexcept;

// When huge_pages_enabled(), asks the kernel (madvise MADV_HUGEPAGE) to back the whole huge
// pages inside the block with huge pages when they are first touched, so call it before
// writing. Returns the bytes advised: 0 when disabled, when the block is too small, the
// platform has no such advice, or the kernel refused it (the memory is then used with
// ordinary pages, unchanged).
size_t advise_huge_pages(void* data, size_t nbytes) noexcept;

}  // namespace ndbuf
