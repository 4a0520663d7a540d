// The registry of mapped files behind the checks in mapped_file.hpp; not a public header.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace ndbuf {

// Registers a live read-only mapping of `path` (as it was at `at_load`); installs the SIGBUS
// handler on first use, chained to the handler it replaces.
void watch_mapping(const void* data, size_t nbytes, const std::string& path,
                   const struct stat& at_load);
// Forgets the mapping that starts at `data`; call before unmapping it.
void unwatch_mapping(const void* data) noexcept;

}  // namespace ndbuf
