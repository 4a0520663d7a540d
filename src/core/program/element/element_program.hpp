// The element program: a small, data-only, typed form of an element-wise computation (a list of
// steps over virtual registers), the compiled form of region bodies. A register holds up to
// `lanes` elements of one dtype, so one run computes the body for many elements at once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "program/ops/elementwise/elementwise.hpp"

namespace ndbuf::program {

class BlockScratch;  // block_scratch.hpp

enum class ElementOp : uint8_t {
  kArgument,         // register = argument `argument` (written by the caller before a run)
  kConstant,         // register = `constant` in every lane
  kUnary,            // unary(operands[0])
  kBinary,           // binary(operands[0], operands[1])
  kCompare,          // compare direction, compare_type (operands[0], operands[1]) -> pred
  kSelect,           // operands[0] ? operands[1] : operands[2]
  kClamp,            // clamp(min = operands[0], x = operands[1], max = operands[2])
  kConvert,          // convert(operands[0]) to dtype
  kReducePrecision,  // reduce_precision(operands[0], exponent_bits, mantissa_bits)
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
  int16_t exponent_bits = 0;  // kReducePrecision
  int16_t mantissa_bits = 0;
  std::array<unsigned char, 16> constant = {};  // the element's bytes (kConstant)
};

struct ElementProgram {
  std::vector<DType> arguments;
  std::vector<ElementStep> steps;  // every argument has exactly one kArgument step
  std::vector<int32_t> results;    // registers returned, in order
};

// Registers of one program over up to `lanes` elements (one per thread: not shared). The
// steps compute exactly what the element-wise kernels compute for the same elements (simple
// ops in loops over the same element functions, float math through the kernels' span
// functions, the others through the kernels themselves), so a program gives the
// interpreter's bits. Computed registers share memory once their last reader has run, so a
// long chain keeps a few registers in cache.
class ElementTile {
 public:
  ElementTile(const ElementProgram& program, int64_t lanes);
  int64_t lanes() const { return lanes_; }
  // Lanes of argument k (its dtype), written by the caller before run(). Undoes a binding.
  void* argument(size_t k);
  // Makes argument k read `lanes` (count elements of its dtype) in place until argument(k)
  // or the next binding: no copy for inputs already laid out as lanes.
  void bind_argument(size_t k, const void* lanes);
  // Lanes of result k after run(): a copy, so it may be written into an argument directly.
  const void* result(size_t k) const { return results_[k].data(); }
  // Computes the first `count` (<= lanes) lanes. Throws only when an allocation fails.
  void run(int64_t count);
  // Computes the first `count` lanes and writes result 0's into `out` (which may be a bound
  // argument's memory: each lane is read before it is written), without the copy run() keeps.
  void run_into(int64_t count, void* out);

 private:
  void* reg(int32_t r) { return regs_[r]; }
  void assign_storage();
  void run_steps(int64_t count);
  void run_step(const ElementStep& step, int32_t r, int64_t count);
  bool run_fast(const ElementStep& step, int32_t r, int64_t count);
  void run_kernel(const ElementStep& step, int32_t r, int64_t count);

  const ElementProgram* program_;
  int64_t lanes_;
  std::unique_ptr<unsigned char[]> storage_;  // uninitialised: lanes are written before read
  std::vector<unsigned char*> home_;          // each register's own memory
  std::vector<unsigned char*> regs_;          // where each register is read and written this run
  std::vector<int32_t> argument_register_;
  std::vector<std::vector<unsigned char>> results_;
  std::shared_ptr<BlockScratch> scratch_;  // the kernels' results, reused tile after tile
};

}  // namespace ndbuf::program
