// Positions in program text and the compile error that carries them.
#pragma once

#include <string>

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {

struct Location {
  int line = 0;
  int column = 0;
};

// Throws an InvalidArgument error "line:column: message" (the form every compile error has).
[[noreturn]] void fail_at(const Location& loc, const std::string& message);

}  // namespace ndbuf::program
