// The one wording of a refused file operation, shared by the mapped-file reader and the writer.
#pragma once

#include <cstring>
#include <string>

#include "ndbuf/base/error.hpp"

namespace ndbuf {

// Throws Error(kIo): "Cannot <what> '<path>': <strerror(err)>."
[[noreturn]] inline void fail_io(const std::string& what, const std::string& path, int err) {
  fail(ErrorKind::kIo, "Cannot " + what + " '" + path + "': " + std::strerror(err) + ".");
}

}  // namespace ndbuf
