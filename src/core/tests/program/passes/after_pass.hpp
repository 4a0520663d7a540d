// A pass run on a program as compile runs it: on the parsed, verified and canonicalised module,
// with canonicalisation again after it; the module must still verify.
#pragma once

#include <string>
#include <vector>

#include "program/passes/canonicalise.hpp"
#include "program/text/parser.hpp"
#include "program/verify/verifier.hpp"

namespace ndbuf::program::testing {

struct AfterPass {
  int count = 0;                 // what the pass returned (ops it moved, masks it folded)
  std::vector<std::string> ops;  // @main's op names afterwards, the terminator included
};

template <class Pass>
AfterPass after_pass(const std::string& text, Pass pass) {
  Module module = parse_program(text);
  verify_module(module, true);
  canonicalise(module);
  AfterPass out;
  out.count = pass(module);
  canonicalise(module);
  verify_module(module, true);
  for (const Op& op : module.find("main")->body.ops) out.ops.push_back(op.name);
  return out;
}

}  // namespace ndbuf::program::testing
