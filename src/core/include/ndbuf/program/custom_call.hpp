// The custom-call target registry: `stablehlo.custom_call @name(...)` runs the target
// registered under `name`. The planner looks the target up when a program is compiled (an
// unknown name is a compile error naming it), hands it the op's site (types, layouts,
// attributes), and the target checks the site and returns the kernel the op runs. Built-in
// targets (print_tensor and the LAPACK-backed linear algebra) are always registered; others
// come from outside, such as C handlers written against inst/include/pjrt_custom_call.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/program/program.hpp"

namespace ndbuf::program {

// One scalar entry of a dictionary backend_config ({key = 1 : i32, name = "text"}).
struct CustomCallAttribute {
  enum class Kind { kInt, kFloat, kBool, kString };
  std::string name;
  Kind kind = Kind::kInt;
  int64_t integer = 0;  // kInt; kBool as 0 / 1
  double number = 0;    // kFloat (kInt also sets it)
  std::string text;     // kString
};

// What a target sees of one custom_call op at compile time.
struct CustomCallSite {
  std::string target;
  std::vector<TensorType> operands;
  std::vector<TensorType> results;
  // Minor-to-major layouts, one per operand / result (row-major when the op declares none).
  std::vector<std::vector<int64_t>> operand_layouts;
  std::vector<std::vector<int64_t>> result_layouts;
  std::string backend_config;                   // a string backend_config, else ""
  std::vector<CustomCallAttribute> attributes;  // the scalar entries of a dictionary one
  int api_version = 1;
  bool has_side_effect = false;

  const CustomCallAttribute* attribute(const std::string& name) const;
};

// Runs one execution of the op: operands (host tensors of the site's types, any strides) in,
// results (of the site's result types) out. Throws ndbuf::Error on failure.
using CustomCallKernel = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
// Checks the site and returns its kernel; throws an InvalidArgument ndbuf::Error whose
// message is a sentence about the site (the planner prefixes line:column and the target).
using CustomCallTarget = std::function<CustomCallKernel(const CustomCallSite&)>;

// Registers `target` under `name`, replacing a target registered before under that name. A
// built-in target's name is refused (InvalidArgument). Thread-safe, like every function here.
void register_custom_call(const std::string& name, CustomCallTarget target);
// Removes a registered (not built-in) target; false when there was none.
bool unregister_custom_call(const std::string& name);
// The target registered under `name`, or an empty function. A registered target's kernels
// stay bound to that registration: once it is removed or replaced (its library may be gone),
// executables compiled before fail when they call it, with an error naming the target,
// instead of calling into code that may no longer be there.
CustomCallTarget find_custom_call(const std::string& name);
bool is_builtin_custom_call(const std::string& name);
// Every registered name, built-ins included, sorted.
std::vector<std::string> custom_call_targets();

// A target calling a C handler (a pjrt_custom_call_handler of pjrt_custom_call.h). `handler`
// must be the address of code in a loaded shared object (InvalidArgument otherwise), and is
// checked again before each call, so a handler whose library was unloaded is an error.
CustomCallTarget c_handler_target(void* handler);
// Whether `address` lies in the executable code of a loaded shared object or the program
// (where the platform cannot tell code from data: in any loaded object).
bool is_loaded_code_address(const void* address);

// Where print_tensor writes its lines (each without its newline); stdout by default. The R
// package sends them to R's console.
void set_custom_call_output(std::function<void(const std::string&)> write_line);
void write_custom_call_line(const std::string& line);

}  // namespace ndbuf::program
