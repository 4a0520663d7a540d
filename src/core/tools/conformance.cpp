// Conformance runner: splits each .mlir file given on the command line on `// -----`, compiles
// every chunk and runs each of its functions that takes no arguments (interpreter test files
// check their results with the check dialect). Prints per-file counts and each failure's first
// error. Exit status 0 even when tests fail: the counts are the output.
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "program/exec/compile.hpp"
#include "program/exec/interpreter.hpp"

namespace {

using ndbuf::program::Function;
using ndbuf::program::Module;

struct Counts {
  int passed = 0;
  int failed = 0;
  int unsupported = 0;
};

bool is_unsupported(const std::string& message) {
  return message.find("not supported by this runtime") != std::string::npos;
}

void record(Counts& counts, const std::string& name, const std::string& error) {
  if (error.empty()) {
    ++counts.passed;
  } else if (is_unsupported(error)) {
    ++counts.unsupported;
    std::cout << "  UNSUPPORTED @" << name << ": " << error << "\n";
  } else {
    ++counts.failed;
    std::cout << "  FAIL @" << name << ": " << error << "\n";
  }
}

std::vector<std::string> function_names(const std::string& chunk) {
  static const std::regex kFunc(R"(func\.func\s+(?:public\s+|private\s+)?@([A-Za-z0-9_$.]+))");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(chunk.begin(), chunk.end(), kFunc);
       it != std::sregex_iterator(); ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

void run_chunk(const std::string& chunk, Counts& counts) {
  ndbuf::program::PlannedModule program;
  try {
    program = ndbuf::program::compile_module(chunk, false);
  } catch (const std::exception& e) {
    for (const std::string& name : function_names(chunk)) record(counts, name, e.what());
    return;
  }
  for (const Function& fn : program.module->functions) {
    if (!fn.has_body || !fn.body.args.empty()) continue;
    std::string error;
    try {
      ndbuf::program::Interpreter interpreter(*program.plan);
      interpreter.call(program.plan->function(fn), {});
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "unknown error";
    }
    record(counts, fn.name, error);
  }
}

// Chunks keep their line numbers: each is padded with the newlines of the chunks before it.
std::vector<std::string> split_chunks(const std::string& text) {
  std::vector<std::string> chunks(1);
  std::istringstream in(text);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    if (line.rfind("// -----", 0) == 0) {
      chunks.emplace_back(static_cast<size_t>(lines), '\n');
      continue;
    }
    chunks.back() += line + "\n";
  }
  return chunks;
}

}  // namespace

int main(int argc, char** argv) {
  Counts total;
  for (int k = 1; k < argc; ++k) {
    std::ifstream file(argv[k]);
    std::stringstream buffer;
    buffer << file.rdbuf();
    std::cout << argv[k] << "\n";
    Counts counts;
    for (const std::string& chunk : split_chunks(buffer.str())) run_chunk(chunk, counts);
    std::cout << "  passed " << counts.passed << ", failed " << counts.failed << ", unsupported "
              << counts.unsupported << "\n";
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.unsupported += counts.unsupported;
  }
  std::cout << "TOTAL passed " << total.passed << ", failed " << total.failed << ", unsupported "
            << total.unsupported << "\n";
  return 0;
}
