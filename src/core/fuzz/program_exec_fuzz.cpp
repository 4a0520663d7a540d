// libFuzzer target for programs that compile: the text (a generated template, or the input
// itself when it reads as a program) is compiled and, when every value it declares is small,
// executed on random arguments. A compile error must be an ndbuf::Error starting with
// "line:column: "; an execution may fail with any ndbuf::Error (bad indices at run time, a
// while loop stopped after its time by the interrupt poll). A crash, a sanitizer report, a hang,
// any other exception, or a pred result holding a byte other than 0 / 1 is a finding.
//
// Input: bytes starting with "func.func", "module", "//" or "#" are program text (the
// committed corpus and dictionary); any other input picks a template (its first byte) and the
// numbers, shapes and dtypes in it (program_templates.hpp); the bytes left seed the arguments.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "program/exec/compile.hpp"
#include "program_op_templates.hpp"

namespace ndbuf::fuzz {
namespace {

// A while loop counting from an argument to a bound picked near the boundaries.
std::string loop(Picker& p) {
  const std::string t = p.pick(2) ? "i32" : "i64";
  const std::string s = "tensor<" + t + ">";
  const int64_t by = p.number();
  const std::string bound = std::to_string(p.number()), step = std::to_string(by == 0 ? 1 : by);
  return program({s},
                 "  %bound = stablehlo.constant dense<" + bound + "> : " + s +
                     "\n  %step = stablehlo.constant dense<" + step + "> : " + s +
                     "\n  %r0 = stablehlo.while(%i = %a0) : " + s +
                     "\n  cond {\n    %c = stablehlo.compare LT, %i, %bound : (" + s + ", " + s +
                     ") -> tensor<i1>\n    stablehlo.return %c : tensor<i1>\n"
                     "  } do {\n    %n = stablehlo.add %i, %step : " +
                     s + "\n    stablehlo.return %n : " + s + "\n  }\n",
                 {s});
}

// case on an argument index (any i32, the last branch for out-of-range ones) and if.
std::string branches(Picker& p) {
  const int n = 1 + p.pick(3);
  std::string regions;
  for (int k = 0; k < n; ++k) {
    regions += std::string(k ? ", " : "") + "{\n    %v" + std::to_string(k) +
               " = stablehlo.constant dense<" + std::to_string(p.number()) +
               "> : tensor<i64>\n    stablehlo.return %v" + std::to_string(k) +
               " : tensor<i64>\n  }";
  }
  return program(
      {"tensor<i32>"},
      "  %r0 = \"stablehlo.case\"(%a0) (" + regions + ") : (tensor<i32>) -> tensor<i64>\n",
      {"tensor<i64>"});
}

// Producers of pred: reduce, select, convert and bitcast into i1 (results must be 0 / 1).
std::string predicates(Picker& p) {
  const std::vector<int64_t> s = p.shape(2);
  const std::string b = tensor(s, "i1"), x = tensor(s, p.pick(2) ? "ui8" : "f32");
  switch (p.pick(3)) {
    case 0:
      return program(
          {b, tensor({}, "i1")},
          "  %r0 = \"stablehlo.reduce\"(%a0, %a1) " + body(p, "i1") +
              " {dimensions = " + ints({0}) + "} : (" + b + ", tensor<i1>) -> " +
              tensor(std::vector<int64_t>(s.size() > 0 ? s.begin() + 1 : s.end(), s.end()), "i1") +
              "\n",
          {tensor(std::vector<int64_t>(s.size() > 0 ? s.begin() + 1 : s.end(), s.end()), "i1")});
    case 1:
      return program({b, b, b}, "  %r0 = stablehlo.select %a0, %a1, %a2 : " + b + ", " + b + "\n",
                     {b});
    default:
      return program({x}, "  %r0 = stablehlo.convert %a0 : (" + x + ") -> " + b + "\n", {b});
  }
}

std::string select_and_scatter(Picker& p) {
  const int64_t n = p.dim();
  const std::vector<int64_t> a = numbers(p, 2);
  const int64_t window = a[0] == 0 ? 1 : a[0], stride = a[1] == 0 ? 1 : a[1];
  const int64_t windows = window > 0 && n >= window && stride > 0 ? (n - window) / stride + 1 : 0;
  const std::string x = tensor({n}, "f32"), s = tensor({p.pick(4) ? windows : p.dim()}, "f32");
  return program({x, s, "tensor<f32>"},
                 "  %r0 = \"stablehlo.select_and_scatter\"(%a0, %a1, %a2) " +
                     comparator(p, "f32").substr(0, std::string::npos) + ", " + body(p, "f32") +
                     " {window_dimensions = " + ints({window}) + ", window_strides = " +
                     ints({stride}) + "} : (" + x + ", " + s + ", tensor<f32>) -> " + x + "\n",
                 {x});
}

// PROGRAM_EXEC_FUZZ_SKIP=reduce_window,dot leaves templates out (a known finding in one
// would otherwise stop every run before the others are explored); "" when the pick is left out.
std::string from_template(Picker& p) {
  using Template = std::string (*)(Picker&);
  static const std::pair<const char*, Template> kTemplates[] = {
      {"elementwise", elementwise},
      {"slice", slice},
      {"pad", pad},
      {"reduce_window", reduce_window},
      {"dot", dot},
      {"top_k", top_k},
      {"sort", sort},
      {"dynamic_slice", dynamic_slice},
      {"gather_scatter", gather_scatter},
      {"structure", structure},
      {"loop", loop},
      {"branches", branches},
      {"predicates", predicates},
      {"select_and_scatter", select_and_scatter}};
  const auto& [name, make] = kTemplates[p.pick(sizeof(kTemplates) / sizeof(kTemplates[0]))];
  const char* skip = std::getenv("PROGRAM_EXEC_FUZZ_SKIP");
  if (skip != nullptr &&
      ("," + std::string(skip) + ",").find("," + std::string(name) + ",") != std::string::npos) {
    return "";
  }
  return make(p);
}

bool is_text(std::string_view in) {
  for (std::string_view start : {"func.func", "module", "//", "#"}) {
    if (in.substr(0, start.size()) == start) return true;
  }
  return false;
}

bool starts_with_location(const std::string& message) {
  size_t k = 0;
  while (k < message.size() && message[k] >= '0' && message[k] <= '9') ++k;
  if (k == 0 || k >= message.size() || message[k] != ':') return false;
  const size_t column = ++k;
  while (k < message.size() && message[k] >= '0' && message[k] <= '9') ++k;
  return k > column && message.compare(k, 2, ": ") == 0;
}

// Executes only programs whose every value is small: kernels may then allocate what their
// operands and results need without passing libFuzzer's malloc limit.
bool small_enough(const program::Module& module) {
  constexpr int64_t kMaxElements = int64_t{1} << 16;
  for (const program::Function& fn : module.functions) {
    for (const program::Type& t : fn.value_types) {
      if (!t.is_tensor()) return false;
      int64_t n = 1;
      for (int64_t d : t.shape) {
        if (d < 0 || d > kMaxElements || (n *= d) > kMaxElements) return false;
      }
    }
  }
  return true;
}

// Arguments: integers mostly at their boundaries or small, floats any bit pattern.
Tensor argument(const program::TensorType& type, std::mt19937_64& rng) {
  Tensor t = Tensor::allocate(type.dtype, type.shape, Order::kRowMajor);
  auto* bytes = static_cast<uint8_t*>(t.data());
  for (int64_t k = 0; k < t.nbytes(); ++k) bytes[k] = static_cast<uint8_t>(rng());
  if (type.dtype == DType::kPred) {
    for (int64_t k = 0; k < t.nbytes(); ++k) bytes[k] &= 1;
  } else if (is_integer(type.dtype)) {
    const size_t item = itemsize(type.dtype);
    for (int64_t k = 0; k < t.numel(); ++k) {
      const uint64_t choice = rng() % 4;
      if (choice == 3) continue;  // random bits
      int64_t v = choice == 0 ? static_cast<int64_t>(rng() % 4) : -1;
      if (choice == 2) v = static_cast<int64_t>(rng() % 2 ? uint64_t{1} << (rng() % 64) : 0);
      std::memcpy(bytes + k * item, &v, item);  // little-endian: the low bytes
    }
  }
  return t;
}

// The interrupt poll stops an execution after its time (a while loop that never ends).
std::chrono::steady_clock::time_point g_deadline;
bool past_deadline() { return std::chrono::steady_clock::now() > g_deadline; }

void run(const std::string& text, std::mt19937_64& rng) {
  std::shared_ptr<const program::Executable> exe;
  try {
    const auto planned = program::compile_module(text, true);
    if (!small_enough(*planned.module)) return;
    exe = program::compile(text);
  } catch (const Error& e) {
    if (!starts_with_location(e.what())) std::abort();  // every compile error has a location
    return;
  }
  std::vector<Tensor> args;
  for (const program::TensorType& type : program::signature(*exe).inputs)
    args.push_back(argument(type, rng));
  g_deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  set_interrupt_poll(&past_deadline);
  try {
    for (const Tensor& out : program::execute(*exe, args)) {
      if (out.dtype() != DType::kPred) continue;
      const auto* b = static_cast<const uint8_t*>(out.data());
      for (int64_t k = 0; k < out.nbytes(); ++k) {
        if (b[k] > 1) std::abort();  // a boolean that is not 0 / 1
      }
    }
  } catch (const Error&) {
    // Legitimate: run-time checks and the deadline.
  }
  set_interrupt_poll(nullptr);
}

}  // namespace
}  // namespace ndbuf::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ndbuf::fuzz;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string text;
  size_t used = size;
  if (is_text(in)) {
    text = std::string(in);
  } else {
    Picker picker(data, size);
    text = from_template(picker);
    if (text.empty()) return 0;
    used = std::min(picker.used(), size);
  }
  // PROGRAM_EXEC_FUZZ_PRINT=1 prints the program an input stands for (to turn a finding into
  // a test): `PROGRAM_EXEC_FUZZ_PRINT=1 program_exec_fuzz crash-...`.
  if (std::getenv("PROGRAM_EXEC_FUZZ_PRINT") != nullptr) std::fprintf(stderr, "%s", text.c_str());
  std::seed_seq seed(data + used - (used == size ? std::min<size_t>(size, 16) : 0), data + size);
  std::mt19937_64 rng(seed);
  run(text, rng);
  return 0;
}
