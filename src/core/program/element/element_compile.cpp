// Region body -> element program: one step per op, values numbered by register.
#include "program/element/element_compile.hpp"

#include <cstring>
#include <unordered_map>

#include "ndbuf/memory/transfer.hpp"
#include "program/ir/attr_access.hpp"

namespace ndbuf::program {
namespace {

bool is_scalar(const Type& type) { return type.is_tensor() && type.shape.empty(); }

// The step of one element-wise op, operands not yet filled in.
struct StepMaker {
  const Op& op;
  ElementStep step;
  bool ok = true;

  void constant() {
    const Attribute& value = required_attr(op, "value");
    if (!value.dense || value.dense->rank() != 0 || value.dense->dtype() != step.dtype) {
      ok = false;
      return;
    }
    const Tensor host = to_host(*value.dense);
    std::memcpy(step.constant.data(), host.data(), itemsize(host.dtype()));
  }

  void compare() {
    const DType in = op.operand_types[0].dtype;
    const auto direction = compare_direction_named(attr_word(op, "comparison_direction"));
    const std::string type_name = attr_word(op, "compare_type");
    const auto type = compare_type_for(type_name, in);
    if (!direction || !type) {
      ok = false;
      return;
    }
    check_compare_type(*type, in);  // throws (declined) when the type does not fit
    step.direction = *direction;
    step.compare_type = *type;
  }

  // The bounds the type rule accepts (ops/elementwise/convert_ops.cpp).
  void reduce_precision() {
    const int64_t e = attr_int(op, "exponent_bits");
    const int64_t m = attr_int(op, "mantissa_bits");
    ok = e >= 1 && e <= 64 && m >= 0 && m <= 64 && op.operand_types[0].dtype == step.dtype;
    step.exponent_bits = static_cast<int16_t>(e);
    step.mantissa_bits = static_cast<int16_t>(m);
  }

  void make() {
    step.dtype = op.result_types[0].dtype;
    const size_t arity = op.operands.size();
    if (op.id == OpId::kConstant && arity == 0) {
      step.op = ElementOp::kConstant;
      constant();
    } else if (op.id == OpId::kCompare && arity == 2) {
      step.op = ElementOp::kCompare;
      compare();
    } else if (op.id == OpId::kSelect && arity == 3) {
      step.op = ElementOp::kSelect;
    } else if (op.id == OpId::kClamp && arity == 3) {
      step.op = ElementOp::kClamp;
    } else if (op.id == OpId::kConvert && arity == 1) {
      step.op = ElementOp::kConvert;
    } else if (op.id == OpId::kReducePrecision && arity == 1) {
      step.op = ElementOp::kReducePrecision;
      reduce_precision();
    } else if (const auto u = unary_op_of(op.id); u && arity == 1) {
      step.op = ElementOp::kUnary;
      step.unary = *u;
      ok = unary_result_dtype(*u, op.operand_types[0].dtype) == step.dtype;
    } else if (const auto b = binary_op_of(op.id); b && arity == 2) {
      step.op = ElementOp::kBinary;
      step.binary = *b;
      ok = binary_result_dtype(*b, op.operand_types[0].dtype, op.operand_types[1].dtype) ==
           step.dtype;
    } else {
      ok = false;
    }
  }
};

// Builds the program op by op; any op that does not fit ends it (ok = false).
struct Compiler {
  ElementProgram program;
  std::unordered_map<int, int32_t> registers;  // value number -> register
  bool ok = true;

  int32_t operand(const Op& op, size_t k) {
    if (k >= op.operands.size()) {
      ok = false;
      return -1;
    }
    const auto it = registers.find(op.operands[k]);
    if (it == registers.end()) ok = false;  // a value from outside the body
    return it == registers.end() ? -1 : it->second;
  }

  void add(const Op& op, ElementStep step) {
    step.dtype = op.result_types[0].dtype;
    for (size_t k = 0; k < op.operands.size() && k < 3; ++k) step.operands[k] = operand(op, k);
    if (op.operands.size() > 3) ok = false;
    registers[op.results[0]] = static_cast<int32_t>(program.steps.size());
    program.steps.push_back(step);
  }

  void op_step(const Op& op) {
    if (op.operand_types.size() != op.operands.size() || op.result_types.size() != 1 ||
        !is_scalar(op.result_types[0])) {
      ok = false;
      return;
    }
    for (const Type& t : op.operand_types) ok = ok && is_scalar(t);
    const std::optional<ElementStep> step = element_step_of(op);
    if (!step) ok = false;
    if (ok) add(op, *step);
  }

  void run(const Region& region) {
    for (size_t k = 0; k < region.args.size() && ok; ++k) {
      ok = k < region.arg_types.size() && is_scalar(region.arg_types[k]);
      if (!ok) break;
      ElementStep step;
      step.dtype = region.arg_types[k].dtype;
      step.argument = static_cast<int32_t>(k);
      registers[region.args[k]] = static_cast<int32_t>(program.steps.size());
      program.steps.push_back(step);
      program.arguments.push_back(step.dtype);
    }
    for (const Op& op : region.ops) {
      if (!ok) return;
      if (op.id == OpId::kReturn) {
        for (size_t k = 0; k < op.operands.size(); ++k) program.results.push_back(operand(op, k));
        return;
      }
      op_step(op);
      if (ok && !element_operands_fit(program, program.steps.back())) ok = false;
    }
    ok = false;  // no terminator
  }
};

}  // namespace

std::optional<ElementStep> element_step_of(const Op& op) {
  if (!op.regions.empty() || op.results.size() != 1 || op.result_types.size() != 1 ||
      op.operand_types.size() != op.operands.size() || op.operands.size() > 3 ||
      !op.result_types[0].is_tensor()) {
    return std::nullopt;
  }
  for (const Type& t : op.operand_types) {
    if (!t.is_tensor()) return std::nullopt;
  }
  try {
    StepMaker maker{op, {}};
    maker.make();
    if (!maker.ok) return std::nullopt;
    return maker.step;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInterrupted || e.kind() == ErrorKind::kOutOfMemory) throw;
    return std::nullopt;
  }
}

bool element_operands_fit(const ElementProgram& program, const ElementStep& s) {
  const auto dtype = [&](int k) { return program.steps[s.operands[k]].dtype; };
  switch (s.op) {
    case ElementOp::kCompare:
      return dtype(0) == dtype(1);
    case ElementOp::kBinary:
      return dtype(0) == dtype(1) || s.binary == BinaryOp::kComplex;
    case ElementOp::kSelect:
      return dtype(0) == DType::kPred && dtype(1) == s.dtype && dtype(2) == s.dtype;
    case ElementOp::kClamp:
      return dtype(0) == s.dtype && dtype(1) == s.dtype && dtype(2) == s.dtype;
    case ElementOp::kReducePrecision:
      return dtype(0) == s.dtype;
    default:
      return true;
  }
}

std::optional<ElementProgram> compile_element_program(const Region& region) {
  try {
    Compiler compiler;
    compiler.run(region);
    if (!compiler.ok || compiler.program.results.empty()) return std::nullopt;
    return std::move(compiler.program);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInterrupted || e.kind() == ErrorKind::kOutOfMemory) throw;
    return std::nullopt;
  }
}

}  // namespace ndbuf::program
