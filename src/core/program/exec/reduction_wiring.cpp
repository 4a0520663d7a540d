// Builders of reduce, reduce_window, select_and_scatter, sort and chlo.top_k over the kernels
// of kernels/reduce*.hpp, sort.hpp, top_k.hpp; common region bodies run natively.
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/element_compile.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/kernels/element_region.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/kernels/reduce.hpp"
#include "program/kernels/reduce_program.hpp"
#include "program/kernels/reduce_window.hpp"
#include "program/kernels/select_and_scatter.hpp"
#include "program/kernels/sort.hpp"
#include "program/kernels/sort_program.hpp"
#include "program/kernels/top_k.hpp"
#include "program/kernels/window_geometry.hpp"

namespace ndbuf::program {
namespace {

std::vector<Tensor> tensors(const Values& a, size_t first, size_t count) {
  std::vector<Tensor> out;
  for (size_t k = first; k < first + count; ++k) out.push_back(a[k].get());
  return out;
}

Values values(std::vector<Tensor> ts) { return Values(ts.begin(), ts.end()); }

// Variadic ops take N inputs then N init values and give N results, each of its init value's
// element type. The kernels call the body with (accumulators..., input elements...), 0-d
// tensors of the init and the input element types, and store what it returns as accumulators.
size_t split_variadic(const Op& op) {
  const size_t n = op.operands.size() / 2;
  if (n == 0 || op.operands.size() != 2 * n || op.result_types.size() != n ||
      op.regions.size() != 1) {
    op_error(op, "needs N inputs, N init values, N results and one region");
  }
  std::vector<DType> inits, args;
  for (size_t k = 0; k < n; ++k) {
    const Type& init = operand_tensor(op, n + k);
    if (!init.shape.empty()) {
      op_error(op, "init value " + std::to_string(k + 1) + " " + type_to_string(init) +
                       " must be a 0-d tensor");
    }
    inits.push_back(init.dtype);
  }
  args = inits;
  for (size_t k = 0; k < n; ++k) args.push_back(operand_tensor(op, k).dtype);
  expect_region_args(op, op.regions[0], scalar_types(args));
  expect_region_returns(op, op.regions[0], scalar_types(inits));
  return n;
}

// Results k < n have the element type of init value k and `shape`.
void expect_variadic_results(const Op& op, size_t n, const Shape& shape) {
  for (size_t k = 0; k < n; ++k) expect_result_type(op, k, operand_tensor(op, n + k).dtype, shape);
}

}  // namespace

OpFn build_reduce(const Op& op, const Planning& planning) {
  const size_t n = split_variadic(op);
  const std::vector<int64_t> dims = attr_ints(op, "dimensions");
  const Type& in = operand_tensor(op, 0);
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  Shape shape;
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end())
      shape.push_back(in.shape[k]);
  }
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape || result_tensor(op, k).shape != shape) {
      op_error(op,
               "inputs must share one shape and results must have shape " + shape_to_tuple(shape));
    }
  }
  expect_variadic_results(op, n, shape);
  const Region* body = &op.regions[0];
  const FastBody fast = n == 1 ? recognise_body(*body) : FastBody::kNone;
  if (fast == FastBody::kNone) {
    if (auto program = compile_element_program(*body)) {
      return [n, dims, program = std::move(*program)](Interpreter&, const Values& a) {
        return values(reduce_program(tensors(a, 0, n), tensors(a, n, n), dims, program));
      };
    }
  }
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, dims, plan, fast](Interpreter& in, const Values& a) {
    return values(reduce(tensors(a, 0, n), tensors(a, n, n), dims, in.region_fn(*plan), fast));
  };
}

namespace {

WindowConfig window_config(const Op& op, size_t rank) {
  WindowConfig w;
  w.window_dimensions = attr_ints(op, "window_dimensions");
  w.window_strides = attr_ints_or(op, "window_strides", std::vector<int64_t>(rank, 1));
  w.base_dilations = attr_ints_or(op, "base_dilations", std::vector<int64_t>(rank, 1));
  w.window_dilations = attr_ints_or(op, "window_dilations", std::vector<int64_t>(rank, 1));
  w.padding = attr_padding(op, "padding", rank);
  return w;
}

}  // namespace

OpFn build_reduce_window(const Op& op, const Planning& planning) {
  const size_t n = split_variadic(op);
  const Type& in = operand_tensor(op, 0);
  const WindowConfig w = window_config(op, in.shape.size());
  const Shape shape = at_op(op, [&] { return reduce_window_shape(in.shape, w); });
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape) op_error(op, "inputs must share one shape");
    if (result_tensor(op, k).shape != shape)
      op_error(op, "results must have shape " + shape_to_tuple(shape));
  }
  expect_variadic_results(op, n, shape);
  const Region* body = &op.regions[0];
  const FastBody fast = n == 1 ? recognise_body(*body) : FastBody::kNone;
  auto program = fast == FastBody::kNone ? compile_element_program(*body) : std::nullopt;
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, w, plan, fast, program](Interpreter& in, const Values& a) {
    const RegionFn fn = program ? element_region_fn(*program) : in.region_fn(*plan);
    return values(reduce_window(tensors(a, 0, n), tensors(a, n, n), w, fn, fast));
  };
}

namespace {

// The kernel calls select with two operand elements and scatter with (result element, source
// element); windows must not be dilated and the source must hold one element per window.
void check_select_and_scatter(const Op& op, const WindowConfig& w) {
  const Type& in = operand_tensor(op, 0);
  const Type& source = operand_tensor(op, 1);
  const Type& init = operand_tensor(op, 2);
  if (!init.shape.empty()) op_error(op, "init value " + type_to_string(init) + " must be 0-d");
  if (source.dtype != in.dtype) {
    op_error(op, "source " + type_to_string(source) + " must have the element type of operand " +
                     type_to_string(in));
  }
  const Shape windows = at_op(op, [&] {
    for (int64_t d : w.base_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "base dilations must be 1.");
    }
    for (int64_t d : w.window_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "window dilations must be 1.");
    }
    return window_geometry(in.shape, w, "select_and_scatter").result_shape;
  });
  if (source.shape != windows) {
    op_error(op, "source " + type_to_string(source) + " should have shape " +
                     shape_to_tuple(windows) + ", one element per window");
  }
  expect_result_type(op, 0, init.dtype, in.shape);
  const Type element = Type::tensor(in.dtype, {});
  const Type result = Type::tensor(init.dtype, {});
  expect_region_args(op, op.regions[0], {element, element});
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_args(op, op.regions[1], {result, element});
  expect_region_returns(op, op.regions[1], {result});
}

}  // namespace

OpFn build_select_and_scatter(const Op& op, const Planning& planning) {
  expect_counts(op, 3, 1);
  if (op.regions.size() != 2) op_error(op, "needs a select and a scatter region");
  const WindowConfig w = window_config(op, operand_tensor(op, 0).shape.size());
  check_select_and_scatter(op, w);
  const Region* select = &op.regions[0];
  const Region* scatter = &op.regions[1];
  const FastComparator fast_select = recognise_comparator(*select);
  const FastBody fast_scatter = recognise_body(*scatter);
  auto select_program = fast_select.direction == ComparatorOrder::kNone
                            ? compile_element_program(*select)
                            : std::nullopt;
  auto scatter_program =
      fast_scatter == FastBody::kNone ? compile_element_program(*scatter) : std::nullopt;
  const RegionPlan* select_plan = &planning.plan.region(*select);
  const RegionPlan* scatter_plan = &planning.plan.region(*scatter);
  return [w, select_plan, scatter_plan, fast_select, fast_scatter, select_program, scatter_program](
             Interpreter& in, const Values& a) -> Values {
    const RegionFn select_fn =
        select_program ? element_region_fn(*select_program) : in.region_fn(*select_plan);
    const RegionFn scatter_fn =
        scatter_program ? element_region_fn(*scatter_program) : in.region_fn(*scatter_plan);
    return {Value(select_and_scatter(a[0].get(), a[1].get(), a[2].get(), w, select_fn, scatter_fn,
                                     fast_select, fast_scatter))};
  };
}

OpFn build_sort(const Op& op, const Planning& planning) {
  if (op.operands.empty() || op.regions.size() != 1 || op.result_types != op.operand_types) {
    op_error(op, "needs operands, one comparator region and results of the operand types");
  }
  const Type& first = operand_tensor(op, 0);
  const auto rank = static_cast<int64_t>(first.shape.size());
  int64_t dim = attr_int_or(op, "dimension", -1);
  if (dim < 0) dim += rank;
  check_axes(op, "dimension", {dim}, std::max<int64_t>(rank, 1), false);
  const bool stable = attr_bool_or(op, "is_stable", false);
  // The comparator takes two 0-d elements of each operand, in operand order, and says whether
  // the first goes before the second.
  std::vector<DType> pairs;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    if (operand_tensor(op, k).shape != first.shape)
      op_error(op, "operands must all have one shape");
    pairs.insert(pairs.end(), 2, operand_tensor(op, k).dtype);
  }
  expect_region_args(op, op.regions[0], scalar_types(pairs));
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  const Region* body = &op.regions[0];
  const FastComparator fast = recognise_comparator(*body);
  const size_t n = op.operands.size();
  if (fast.direction == ComparatorOrder::kNone) {
    if (auto program = compile_element_program(*body)) {
      return [n, dim, comparator = make_sort_comparator(std::move(*program))](Interpreter&,
                                                                              const Values& a) {
        return values(sort_program(tensors(a, 0, n), dim, comparator));
      };
    }
  }
  const RegionPlan* plan = &planning.plan.region(*body);
  return [n, dim, stable, plan, fast](Interpreter& in, const Values& a) {
    return values(sort(tensors(a, 0, n), dim, stable, in.region_fn(*plan), fast));
  };
}

OpFn build_top_k(const Op& op, const Planning&) {
  expect_counts(op, 1, 2);
  const Type& in = operand_tensor(op, 0);
  const int64_t k = attr_int(op, "k");
  if (in.shape.empty() || k < 0 || k > in.shape.back())
    op_error(op, "k = " + std::to_string(k) + " does not fit the last axis");
  const Shape shape = at_op(op, [&] { return top_k_shape(in.shape, in.dtype, k); });
  expect_result_type(op, 0, in.dtype, shape);
  expect_result_type(op, 1, DType::kI32, shape);
  return [k](Interpreter&, const Values& a) { return values(top_k(a[0].get(), k)); };
}

}  // namespace ndbuf::program
