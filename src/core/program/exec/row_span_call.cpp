// The span calls of row-fused units (row_span_call.hpp).
#include "program/exec/row_span_call.hpp"

namespace ndbuf::program {
namespace {

// The kernels of `step` in T; the scalar kernel where one operand is a row broadcast and the
// other a register (setting `scalar_operand`).
template <class T>
SpanKernels<T> kernels_of(const RowUnit& unit, const ElementStep& step, int& scalar_operand) {
  SpanKernels<T> kernels;
  if (step.op == ElementOp::kUnary) {
    kernels.unary = span_unary<T>(step.unary);
    return kernels;
  }
  if (step.op != ElementOp::kBinary) return kernels;
  kernels.binary = span_binary<T>(step.binary);
  if (kernels.binary == nullptr) return kernels;
  const auto kind_of = [&](int operand) {
    return unit.inputs[static_cast<size_t>(step.operands[static_cast<size_t>(operand)])].kind;
  };
  for (int side = 0; side < 2; ++side) {
    if (kind_of(side) != RowInput::Kind::kRowBroadcast ||
        kind_of(1 - side) != RowInput::Kind::kRegister) {
      continue;
    }
    kernels.scalar = span_binary_scalar<T>(step.binary, side == 0);
    if (kernels.scalar != nullptr) scalar_operand = side;
  }
  return kernels;
}

}  // namespace

SpanCall span_call_of(const RowUnit& unit) {
  if (unit.kind != RowUnit::Kind::kElement || unit.program.steps.size() != unit.inputs.size() + 1) {
    return {};
  }
  const ElementStep& step = unit.program.steps.back();
  if (step.dtype != DType::kF32 && step.dtype != DType::kF64) return {};
  for (size_t k = 0; k < unit.inputs.size(); ++k) {
    if (unit.inputs[k].kind == RowInput::Kind::kOutside) return {};
    if (unit.program.arguments[k] != step.dtype) return {};
  }
  SpanCall call;
  call.dtype = step.dtype;
  if (step.dtype == DType::kF32) {
    call.f32 = kernels_of<float>(unit, step, call.scalar_operand);
  } else {
    call.f64 = kernels_of<double>(unit, step, call.scalar_operand);
  }
  return call;
}

}  // namespace ndbuf::program
