// Text -> planned module, the pipeline behind ndbuf::program::compile() (also used directly by
// the conformance runner, whose files have no @main).
#pragma once

#include <memory>
#include <string_view>

#include "ndbuf/program/program.hpp"
#include "program/ir/module.hpp"

namespace ndbuf::program {

// Parses, verifies and plans. The module's ops hold pointers into it: keep it where it is.
std::unique_ptr<const Module> compile_module(std::string_view text, bool require_main,
                                             const CompileOptions& options = {});

}  // namespace ndbuf::program
