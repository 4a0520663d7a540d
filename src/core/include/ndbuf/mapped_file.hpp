// Read-only memory maps of whole files, as Storage. A tensor can then reference the file's
// pages without copying them: a slice of the mapping keeps the whole mapping alive, and the
// pages are unmapped when the last slice dies.
//
// The mapping is private and read-only. Replacing the file by rename (what ndbuf's writers
// do) is safe: the mapping keeps the old contents. Truncating or rewriting the file in place
// while it is mapped is not: reading pages past the new end raises SIGBUS (a limit of mmap
// itself, shared by every zero-copy reader).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "ndbuf/storage.hpp"

namespace ndbuf {

// Maps the file at `path` read-only; an empty file gives a Storage of zero bytes. Throws
// Error(kIo) naming the path and the operating system's reason.
std::shared_ptr<Storage> map_file(const std::string& path);

// The bytes [offset, offset + nbytes) of `parent` as a Storage of their own, which holds
// `parent` alive and inherits its read-only flag, and its device unless `device` names
// another one of the same platform (host memory serves every CPU device). Throws kIndex when
// the range does not lie inside `parent`, kInvalidArgument for another platform.
std::shared_ptr<Storage> slice_storage(const std::shared_ptr<Storage>& parent, size_t offset,
                                       size_t nbytes, std::optional<Device> device = {});

}  // namespace ndbuf
