// The element program: a small, data-only, typed form of an element-wise computation (a list of
// steps over virtual registers), the compiled form of region bodies. A register holds up to
// `lanes` elements of one dtype, so one run computes the body for many elements at once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "program/kernels/elementwise.hpp"

namespace ndbuf::program {

enum class ElementOp : uint8_t {
  kArgument,  // register = argument `argument` (written by the caller before a run)
  kConstant,  // register = `constant` in every lane
  kUnary,     // unary(operands[0])
  kBinary,    // binary(operands[0], operands[1])
  kCompare,   // compare direction, compare_type (operands[0], operands[1]) -> pred
  kSelect,    // operands[0] ? operands[1] : operands[2]
  kClamp,     // clamp(min = operands[0], x = operands[1], max = operands[2])
  kConvert,   // convert(operands[0]) to dtype
};

// One step; its result is the register numbered as the step. Operands name earlier steps.
struct ElementStep {
  ElementOp op = ElementOp::kArgument;
  DType dtype = DType::kPred;  // of the result
  std::array<int32_t, 3> operands = {-1, -1, -1};
  int32_t argument = -1;
  UnaryOp unary = UnaryOp::kNegate;
  BinaryOp binary = BinaryOp::kAdd;
  CompareDirection direction = CompareDirection::kEQ;
  CompareType compare_type = CompareType::kFloat;
  std::array<unsigned char, 16> constant = {};  // the element's bytes (kConstant)
};

struct ElementProgram {
  std::vector<DType> arguments;
  std::vector<ElementStep> steps;  // every argument has exactly one kArgument step
  std::vector<int32_t> results;    // registers returned, in order
};

// Registers of one program over up to `lanes` elements (one per thread: not shared). The
// steps compute exactly what the element-wise kernels compute for the same elements (simple
// ops in loops over the same element functions, the others through the kernels themselves),
// so a program gives the interpreter's bits.
class ElementTile {
 public:
  ElementTile(const ElementProgram& program, int64_t lanes);
  int64_t lanes() const { return lanes_; }
  // Lanes of argument k (its dtype), written by the caller before run().
  void* argument(size_t k) { return reg(argument_register_[k]); }
  // Lanes of result k after run(): a copy, so it may be written into an argument directly.
  const void* result(size_t k) const { return results_[k].data(); }
  // Computes the first `count` (<= lanes) lanes. Throws only when an allocation fails.
  void run(int64_t count);

 private:
  void* reg(int32_t r) { return storage_.data() + offsets_[r]; }
  void run_step(const ElementStep& step, int32_t r, int64_t count);
  bool run_fast(const ElementStep& step, int32_t r, int64_t count);
  void run_kernel(const ElementStep& step, int32_t r, int64_t count);

  const ElementProgram* program_;
  int64_t lanes_;
  std::vector<unsigned char> storage_;
  std::vector<size_t> offsets_;
  std::vector<int32_t> argument_register_;
  std::vector<std::vector<unsigned char>> results_;
};

}  // namespace ndbuf::program
