// stablehlo.reduce and stablehlo.reduce_window over reduce*.hpp and reduce_window.hpp:
// N inputs, N 0-d init values, N results. The type rules infer the result shapes from the
// dimensions and windows and the body's signature from the operands; the builders run a
// recognised body natively, a body that compiles to an element program as one, and any other
// through the interpreter.
#include <algorithm>

#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/kernels/reduce_fast.hpp"
#include "program/ops/reduction/reduce.hpp"
#include "program/ops/reduction/reduce_arg_pick.hpp"
#include "program/ops/reduction/reduce_program.hpp"
#include "program/ops/reduction/reduce_window.hpp"
#include "program/ops/reduction/reduce_window_program.hpp"
#include "program/ops/reduction/window_attrs.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// Variadic ops take N inputs then N 0-d init values and give N results, each of its init
// value's element type; the kernels call the body with (accumulators..., input elements...)
// and store what it returns as accumulators. Returns N.
size_t split_variadic(const Op& op) {
  const size_t n = op.operands.size() / 2;
  if (n == 0 || op.operands.size() != 2 * n || op.result_types.size() != n ||
      op.regions.size() != 1) {
    op_error(op, "needs N inputs, N init values, N results and one region");
  }
  std::vector<DType> inits;
  for (size_t k = 0; k < n; ++k) {
    const Type& init = operand_tensor(op, n + k);
    if (!init.shape.empty()) {
      op_error(op, "init value " + std::to_string(k + 1) + " " + type_to_string(init) +
                       " must be a 0-d tensor");
    }
    inits.push_back(init.dtype);
  }
  std::vector<DType> args = inits;
  for (size_t k = 0; k < n; ++k) args.push_back(operand_tensor(op, k).dtype);
  expect_region_args(op, op.regions[0], scalar_types(args));
  expect_region_returns(op, op.regions[0], scalar_types(inits));
  return n;
}

// Results k < n have the element type of init value k and `shape`.
void expect_variadic_results(const Op& op, size_t n, const Shape& shape) {
  for (size_t k = 0; k < n; ++k) expect_result_type(op, k, operand_tensor(op, n + k).dtype, shape);
}

// argmax and its kin (arg_body.hpp) over one dimension, natively; an empty function otherwise.
OpFn build_arg_pick(const ElementProgram& body, const std::vector<int64_t>& dims) {
  if (dims.size() != 1 || body.arguments.size() != 4) return {};
  if (!arg_pick_supported(body.arguments[0], body.arguments[1])) return {};
  const std::optional<ArgPickTable> table = recognise_arg_pick(body);
  if (!table) return {};
  return [dim = dims[0], table = *table](Interpreter&, const Values& a) {
    return values_of(reduce_arg_pick(a[0].get(), a[1].get(), a[2].get(), a[3].get(), dim, table));
  };
}

}  // namespace

void reduce_types(const Op& op, const Module&) {
  const size_t n = split_variadic(op);
  const std::vector<int64_t> dims = attr_ints(op, "dimensions");
  const Type& in = operand_tensor(op, 0);
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  Shape shape;
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end()) {
      shape.push_back(in.shape[k]);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape || result_tensor(op, k).shape != shape) {
      op_error(op,
               "inputs must share one shape and results must have shape " + shape_to_tuple(shape));
    }
  }
  expect_variadic_results(op, n, shape);
}

namespace {

// Whether reduce() would fold this op's one operand with reduce_associative, judged from the
// verified types once: the run function then calls it straight from the operands (no vectors
// of tensors or region function made per run, which a small reduce in a loop pays for).
bool folds_directly(const Op& op, FastBody fast) {
  if (fast == FastBody::kNone || fast == FastBody::kReplace || op.operands.size() != 2) {
    return false;
  }
  const DType dtype = op.operand_types[0].dtype;
  return op.operand_types[1].dtype == dtype && fast_body_fits(fast, dtype);
}

}  // namespace

// reduce_types has checked the operands, the dimensions, the results and the body.
OpFn build_reduce(const Op& op, const Planning& planning) {
  const size_t n = op.operands.size() / 2;
  const std::vector<int64_t> dims = attr_ints(op, "dimensions");
  const Region* body = &op.regions[0];
  const FastBody fast = n == 1 ? recognise_body(*body) : FastBody::kNone;
  if (fast == FastBody::kNone) {
    if (auto program = region_program(*body, planning)) {
      if (OpFn arg_pick = build_arg_pick(*program, dims)) return arg_pick;
      return [n, dims, program = std::move(*program)](Interpreter&, const Values& a) {
        return values_of(reduce_program(tensors_of(a, 0, n), tensors_of(a, n, n), dims, program));
      };
    }
  }
  if (folds_directly(op, fast)) {
    const Shape result_shape = op.result_types[0].shape;
    return [dims, result_shape, fast](Interpreter&, const Values& a) {
      return one_value(reduce_associative(a[0].get(), a[1].get(), dims, result_shape, fast));
    };
  }
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, dims, plan, fast](Interpreter& in, const Values& a) {
    return values_of(
        reduce(tensors_of(a, 0, n), tensors_of(a, n, n), dims, in.region_fn(*plan), fast));
  };
}

void reduce_window_types(const Op& op, const Module&) {
  const size_t n = split_variadic(op);
  const Type& in = operand_tensor(op, 0);
  const WindowConfig w = window_config(op, in.shape.size());
  const Shape shape = at_op(op, [&] { return reduce_window_shape(in.shape, w); });
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape) op_error(op, "inputs must share one shape");
    if (result_tensor(op, k).shape != shape) {
      op_error(op, "results must have shape " + shape_to_tuple(shape));
    }
  }
  expect_variadic_results(op, n, shape);
}

// reduce_window_types has checked the operands, the window, the results and the body.
OpFn build_reduce_window(const Op& op, const Planning& planning) {
  const size_t n = op.operands.size() / 2;
  const WindowConfig w = window_config(op, operand_tensor(op, 0).shape.size());
  const BodyCall body = body_call(op.regions[0], planning, n == 1);
  if (body.fast == FastBody::kNone && body.program) {
    return [n, w, program = *body.program](Interpreter&, const Values& a) {
      return values_of(reduce_window_program(tensors_of(a, 0, n), tensors_of(a, n, n), w, program));
    };
  }
  return [n, w, body](Interpreter& in, const Values& a) {
    return values_of(
        reduce_window(tensors_of(a, 0, n), tensors_of(a, n, n), w, body.fn(in), body.fast));
  };
}

}  // namespace ndbuf::program
