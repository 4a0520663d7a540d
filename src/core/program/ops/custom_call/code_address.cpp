// Whether an address is code of a loaded object: a handler pointer that is anything else (an
// object's address passed by mistake, a function of a library unloaded since) must not be
// called. On ELF systems the loader's program headers say which segments are executable; where
// there are none to walk, dladdr() at least says whether a loaded object holds the address.
#include <dlfcn.h>

#include <cstdint>

#include "ndbuf/program/custom_call.hpp"

#if defined(__linux__) || defined(__FreeBSD__)
#include <link.h>
#define NDBUF_HAS_PHDR_WALK 1
#endif

namespace ndbuf::program {

#ifdef NDBUF_HAS_PHDR_WALK
namespace {

struct CodeQuery {
  uintptr_t address;
  bool found;
};

int find_in_executable_segment(dl_phdr_info* info, size_t, void* data) {
  auto* query = static_cast<CodeQuery*>(data);
  for (int k = 0; k < info->dlpi_phnum; ++k) {
    const auto& header = info->dlpi_phdr[k];
    if (header.p_type != PT_LOAD || (header.p_flags & PF_X) == 0) continue;
    const uintptr_t start = info->dlpi_addr + header.p_vaddr;
    if (query->address >= start && query->address - start < header.p_memsz) {
      query->found = true;
      return 1;
    }
  }
  return 0;
}

}  // namespace

bool is_loaded_code_address(const void* address) {
  CodeQuery query{reinterpret_cast<uintptr_t>(address), false};
  dl_iterate_phdr(find_in_executable_segment, &query);
  return query.found;
}
#else
bool is_loaded_code_address(const void* address) {
  Dl_info info;
  return dladdr(address, &info) != 0;
}
#endif

}  // namespace ndbuf::program
