// The span calls of row-fused units (row_span_call.hpp).
#include "program/exec/row_span_call.hpp"

namespace ndbuf::program {
namespace {

SpanCall span_call_of_step(const ElementStep& step) {
  SpanCall call;
  call.dtype = step.dtype;
  const bool f32 = step.dtype == DType::kF32;
  if (step.op == ElementOp::kUnary) {
    if (f32) {
      call.unary_f32 = span_unary<float>(step.unary);
    } else {
      call.unary_f64 = span_unary<double>(step.unary);
    }
  } else if (step.op == ElementOp::kBinary) {
    if (f32) {
      call.binary_f32 = span_binary<float>(step.binary);
    } else {
      call.binary_f64 = span_binary<double>(step.binary);
    }
  }
  return call;
}

// Sets the scalar kernel of a binary step that reads one register and one row broadcast.
void add_scalar_kernel(const RowUnit& unit, const ElementStep& step, SpanCall& call) {
  if (step.op != ElementOp::kBinary) return;
  const auto kind_of = [&](int operand) {
    return unit.inputs[static_cast<size_t>(step.operands[static_cast<size_t>(operand)])].kind;
  };
  for (int side = 0; side < 2; ++side) {
    if (kind_of(side) != RowInput::Kind::kRowBroadcast ||
        kind_of(1 - side) != RowInput::Kind::kRegister) {
      continue;
    }
    const bool left = side == 0;
    if (step.dtype == DType::kF32) {
      call.scalar_f32 = span_binary_scalar<float>(step.binary, left);
    } else {
      call.scalar_f64 = span_binary_scalar<double>(step.binary, left);
    }
    if (call.scalar_f32 != nullptr || call.scalar_f64 != nullptr) call.scalar_operand = side;
  }
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
  SpanCall call = span_call_of_step(step);
  if (call.usable()) add_scalar_kernel(unit, step, call);
  return call;
}

}  // namespace ndbuf::program
