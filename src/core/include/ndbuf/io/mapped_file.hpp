// Read-only memory maps of whole files, as Storage. A tensor can then reference the file's
// pages without copying them: a slice of the mapping keeps the whole mapping alive, and the
// pages are unmapped when the last slice dies.
//
// The mapping is private and read-only. Replacing the file by rename (what ndbuf's writers
// do) is safe: the mapping keeps the old contents. Changing the file in place is detected
// instead of prevented: reading a page the file no longer has (it was truncated) raises
// SIGBUS, which ndbuf's handler turns into a zero page and a mark on the mapping (faults
// anywhere else go to the handler that was there before); and a size or modification time
// that differs from the one at mapping time marks an in-place rewrite (looked up at most
// once a millisecond per mapping: reads starting later see it). Callers check a
// mapping before reading it (check_mapping_intact) and the fault count after
// (check_no_mapping_faults), so either change is an Error, never a dead process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ndbuf/memory/storage.hpp"

namespace ndbuf {

// Maps the file at `path` read-only; an empty file gives a Storage of zero bytes. Throws
// Error(kIo) naming the path and the operating system's reason.
std::shared_ptr<Storage> map_file(const std::string& path);

// Reads the whole file at `path` into fresh read-only host memory (immune to later changes
// of the file). Errors as map_file().
std::shared_ptr<Storage> read_file(const std::string& path);

// Files below this size are read rather than mapped: copying them costs no more than
// mapping, and each mapping counts against the process's map limit (vm.max_map_count).
inline constexpr size_t kReadWholeFileBytes = size_t{1} << 20;

// read_file() when `copy` or the file is small, else map_file().
std::shared_ptr<Storage> open_file(const std::string& path, bool copy);

// Throws Error(kIo), naming the file, when `data` lies in a mapped file that lost pages or
// changed size or modification time since it was mapped; returns for any other memory.
void check_mapping_intact(const void* data);
// Whether `data` lies inside a live file mapping (memory that can change underneath).
bool lies_in_mapped_file(const void* data);
// How many faults on mapped files the SIGBUS handler has absorbed in this process.
uint64_t mapping_fault_count() noexcept;
// Throws Error(kIo) naming the file when a fault was absorbed since the count was `before`.
void check_no_mapping_faults(uint64_t before);

// The bytes [offset, offset + nbytes) of `parent` as a Storage of their own, which holds
// `parent` alive and inherits its read-only flag, and its device unless `device` names
// another one of the same platform (host memory serves every CPU device). Throws kIndex when
// the range does not lie inside `parent`, kInvalidArgument for another platform.
std::shared_ptr<Storage> slice_storage(const std::shared_ptr<Storage>& parent, size_t offset,
                                       size_t nbytes, std::optional<Device> device = {});

}  // namespace ndbuf
